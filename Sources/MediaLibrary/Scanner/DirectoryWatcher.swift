import Foundation
package import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
    import Platform
#endif

/// Watches the music directory with Linux inotify for `auto_update`, as MPD's `InotifyUpdate`
/// does: every directory down to `auto_update_depth` gets a watch, directories that appear are
/// watched as they come, and each change is reported as the URI of the part of the library to
/// update. The watcher runs on a thread of its own (blocking in `poll`), never on a Swift
/// concurrency thread, and calls `onEvent` there.
///
/// What is watched follows the scanner's rules (`DiskWalker`): symbolic links to directories are
/// followed when `follow_inside_symlinks`/`follow_outside_symlinks` allow it, and a directory
/// reachable twice is watched once (inotify gives one watch per inode).
package final class DirectoryWatcher: Sendable {
    /// What the watcher tells its owner, on the watcher's thread.
    package enum Event: Sendable, Equatable {
        /// The walk that sets up the watches finished (at start, or again after the kernel's
        /// event queue overflowed); this many directories are watched.
        case watching(directories: Int)
        /// Something in the directory `uri` (`""` is the music directory) changed on disk:
        /// updating that URI brings the database in line.
        case changed(String)
        /// The music directory itself went away (removed, moved, or its file system unmounted):
        /// nothing is watched any more, and a new watcher is needed once it is back.
        case rootLost
    }

    /// Why the watcher could not start.
    package struct Failure: Error, CustomStringConvertible {
        /// The call that failed and the system's reason.
        package let description: String

        init(_ call: String, _ code: Int32 = errno) {
            description = "\(call): \(String(cString: strerror(code)))"
        }
    }

    /// MPD's watch mask: writes, creations, deletions and moves in a directory, and the
    /// directory's own removal. `IN_ONLYDIR` makes a watch on something that stopped being a
    /// directory fail rather than watch a file.
    static let mask =
        UInt32(IN_ONLYDIR) | UInt32(IN_ATTRIB | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE)
        | UInt32(IN_DELETE_SELF | IN_MOVE | IN_MOVE_SELF)

    private struct Watch {
        /// The directory's URI relative to the music directory.
        var uri: String
        /// Its name in its parent (`""` for the root).
        var name: String
        /// 0 for the music directory, 1 for its sub-directories, …
        var depth: Int
        var parent: Int32?
        /// Watched sub-directories by name.
        var children: [String: Int32] = [:]
    }

    private struct State {
        var watches: [Int32: Watch] = [:]
        var warnedAboutLimit = false
    }

    /// Whether the thread has ended, and who waits for it to.
    private struct Ending {
        var finished = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let inotify: Int32
    /// The pipe `stop()` writes to, to wake the thread from `poll`: [read end, write end].
    private let wakePipe: [Int32]
    private let rootWatch: Int32
    private let walker: DiskWalker
    private let maxDepth: Int
    private let ignoredPaths: Set<String>
    private let logger: Logger
    private let onEvent: @Sendable (Event) -> Void
    /// The watch table; only the watcher's thread changes it.
    private let state = Mutex(State())
    /// Set by `stop()` without taking `state`, which a long walk may hold.
    private let stopRequested = Atomic<Bool>(false)
    private let ending = Mutex(Ending())

    /// Starts watching `root` and the directories below it.
    /// - Parameters:
    ///   - maxDepth: `auto_update_depth`: 0 watches the music directory alone, 1 adds its
    ///     sub-directories, …; `nil` is no limit (MPD's default).
    ///   - onEvent: called on the watcher's thread; keep it short.
    /// - Throws: `Failure` when inotify is unavailable or `root` cannot be watched.
    package convenience init(
        root: String,
        maxDepth: Int? = nil,
        followInsideSymlinks: Bool = true,
        followOutsideSymlinks: Bool = true,
        logger: Logger,
        onEvent: @escaping @Sendable (Event) -> Void
    ) throws {
        var root = root
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        let walker = DiskWalker(
            root: root, realRoot: Self.resolved(root), songSuffixes: [], playlistSuffixes: [],
            followInsideSymlinks: followInsideSymlinks, followOutsideSymlinks: followOutsideSymlinks
        )
        try self.init(walker: walker, maxDepth: maxDepth, ignoredPaths: [], logger: logger, onEvent: onEvent)
    }

    /// Starts watching the walker's root.
    /// - Parameter ignoredPaths: absolute paths whose changes are not reported: the database's
    ///   own files, when `db_file` lies inside the music directory, would otherwise make every
    ///   update trigger the next.
    init(
        walker: DiskWalker,
        maxDepth: Int?,
        ignoredPaths: Set<String>,
        logger: Logger,
        onEvent: @escaping @Sendable (Event) -> Void
    ) throws {
        self.walker = walker
        self.maxDepth = max(0, maxDepth ?? Int.max)
        self.ignoredPaths = ignoredPaths
        self.logger = logger
        self.onEvent = onEvent
        inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard inotify >= 0 else { throw Failure("inotify_init1") }
        rootWatch = inotify_add_watch(inotify, walker.root, Self.mask)
        guard rootWatch >= 0 else {
            let failure = Failure("cannot watch \(walker.root)")
            close(inotify)
            throw failure
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            let failure = Failure("pipe")
            close(inotify)
            throw failure
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        // The last stored property: from here the object is whole and `deinit` closes the pipe.
        wakePipe = ends
        state.withLock { $0.watches[rootWatch] = Watch(uri: "", name: "", depth: 0) }
        NamedThread.start(name: "tonearm.inotify") { [self] in run() }
    }

    /// The URIs of the watched directories, sorted (`""` is the music directory).
    package var watchedDirectories: [String] {
        state.withLock { $0.watches.values.map(\.uri) }.sorted()
    }

    /// Stops watching: wakes the thread, which removes every watch and closes its descriptors,
    /// and returns once it has. No event is reported after this returns.
    package func stop() async {
        if !stopRequested.exchange(true, ordering: .sequentiallyConsistent) {
            var byte: UInt8 = 1
            _ = write(wakePipe[1], &byte, 1)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done: Bool = ending.withLock { ending in
                if ending.finished { return true }
                ending.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    // MARK: - The watcher's thread

    private var stopping: Bool { stopRequested.load(ordering: .sequentiallyConsistent) }

    private func run() {
        let count: Int = state.withLock { state in
            watchChildren(of: rootWatch, &state)
            return state.watches.count
        }
        if !stopping {
            logger.info("auto_update: watching \(count) directories below \(walker.root)")
            onEvent(.watching(directories: count))
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !stopping {
            var fds = [
                pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wakePipe[0], events: Int16(POLLIN), revents: 0),
            ]
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                logger.error("auto_update stops: \(Failure("poll"))")
                break
            }
            if fds[1].revents != 0 { break }
            guard fds[0].revents != 0 else { continue }
            let length = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            if length < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                logger.error("auto_update stops: \(Failure("read"))")
                break
            }
            let reports = buffer.withUnsafeBytes { bytes in
                handle(Self.parse(UnsafeRawBufferPointer(rebasing: bytes[0..<length])))
            }
            for report in reports where !stopping {
                if case .changed(let uri) = report { logger.debug("auto_update: \"\(uri)\" changed") }
                onEvent(report)
            }
        }
        finish()
    }

    private func finish() {
        close(inotify)  // removes every watch
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        state.withLock { $0.watches.removeAll() }
        let waiters: [CheckedContinuation<Void, Never>] = ending.withLock { ending in
            ending.finished = true
            defer { ending.waiters = [] }
            return ending.waiters
        }
        waiters.forEach { $0.resume() }
    }

    // The pipe outlives the thread, so a late `stop()` never writes to a closed descriptor.
    deinit {
        wakePipe.forEach { _ = close($0) }
    }

    /// One `struct inotify_event`.
    struct RawEvent {
        var descriptor: Int32
        var mask: UInt32
        var name: String?
    }

    /// Splits what `read` returned into events: a 16-byte header, then `len` bytes of name
    /// padded with NULs.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> [RawEvent] {
        var events: [RawEvent] = []
        var offset = 0
        while offset + 16 <= bytes.count {
            let descriptor = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameStart = offset + 16
            let nameEnd = min(nameStart + length, bytes.count)
            let nameBytes = bytes[nameStart..<nameEnd].prefix { $0 != 0 }
            let name = nameBytes.isEmpty ? nil : String(decoding: nameBytes, as: UTF8.self)
            events.append(RawEvent(descriptor: descriptor, mask: mask, name: name))
            offset = nameEnd
        }
        return events
    }

    /// Applies a batch of events to the watch table and returns what to report, in order.
    private func handle(_ events: [RawEvent]) -> [Event] {
        state.withLock { state in
            var reports: [Event] = []
            func report(_ uri: String) {
                if reports.last != .changed(uri) { reports.append(.changed(uri)) }
            }
            for event in events {
                let mask = event.mask
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    logger.warning("auto_update: the kernel dropped events; updating everything")
                    reports.append(.watching(directories: rewatchEverything(&state)))
                    report("")
                    continue
                }
                guard let watch = state.watches[event.descriptor] else { continue }
                // The root's watch ends with its removal or move, or, when its file system is
                // unmounted, with IN_IGNORED alone; whichever comes first reports it once (the
                // watch is gone from the table after it).
                if mask & UInt32(IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0 && event.descriptor == rootWatch {
                    logger.warning("auto_update: the music directory was removed, moved or unmounted")
                    unwatch(event.descriptor, removing: mask & UInt32(IN_IGNORED) == 0, &state)
                    reports.append(.rootLost)
                    continue
                }
                if mask & UInt32(IN_IGNORED) != 0 {
                    unwatch(event.descriptor, removing: false, &state)
                    continue
                }
                if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF) != 0 {
                    unwatch(event.descriptor, removing: true, &state)
                    continue
                }
                guard let name = event.name, !name.contains("\n") else { continue }
                let childURI = watch.uri.isEmpty ? name : watch.uri + "/" + name
                if ignoredPaths.contains(walker.path(of: childURI)) { continue }
                // A directory that went away or moved elsewhere takes its watches with it; one
                // moved here is watched afresh below.
                if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0, let child = watch.children[name] {
                    unwatch(child, removing: true, &state)
                }
                if mask & UInt32(IN_CREATE | IN_MOVED_TO | IN_ATTRIB) != 0 {
                    switch entry(walker.path(of: childURI)) {
                    case .directory:
                        watchChild(name, of: event.descriptor, &state)
                        // Files may land in a new directory before its watch exists, and one
                        // beyond auto_update_depth gets no watch at all: look at it now.
                        if mask & UInt32(IN_CREATE) != 0 { report(childURI) }
                    case .link where mask & UInt32(IN_CREATE) != 0:
                        report(watch.uri)  // a new link to a file brings no IN_CLOSE_WRITE
                    default:
                        break
                    }
                }
                if mask & UInt32(IN_CLOSE_WRITE | IN_MOVE | IN_DELETE) != 0 { report(watch.uri) }
            }
            return reports
        }
    }

    private enum Entry { case directory, link, other }

    /// What a new entry is, by the scanner's symlink rules.
    private func entry(_ path: String) -> Entry {
        var info = stat()
        if walker.followedStat(path, &info), info.st_mode & S_IFMT == S_IFDIR { return .directory }
        guard lstat(path, &info) == 0 else { return .other }
        return info.st_mode & S_IFMT == S_IFLNK ? .link : .other
    }

    /// Adds watches for the sub-directories of a watched directory, recursively, down to the
    /// depth limit.
    private func watchChildren(of descriptor: Int32, _ state: inout State) {
        guard let watch = state.watches[descriptor], watch.depth < maxDepth, !stopping else { return }
        guard let handle = opendir(walker.path(of: watch.uri)) else { return }
        var names: [String] = []
        while let entry = readdir(handle) {
            guard entry.pointee.d_type == DT_DIR || entry.pointee.d_type == DT_LNK || entry.pointee.d_type == DT_UNKNOWN
            else { continue }
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." || name.contains("\n") { continue }
            names.append(name)
        }
        closedir(handle)
        for name in names { watchChild(name, of: descriptor, &state) }
    }

    /// Watches the sub-directory `name` of a watched directory and what lies below it, when the
    /// depth limit and the symlink rules allow it and it is not watched already.
    private func watchChild(_ name: String, of parent: Int32, _ state: inout State) {
        guard let parentWatch = state.watches[parent], parentWatch.depth < maxDepth, !stopping else { return }
        let uri = parentWatch.uri.isEmpty ? name : parentWatch.uri + "/" + name
        let path = walker.path(of: uri)
        var info = stat()
        guard walker.followedStat(path, &info), info.st_mode & S_IFMT == S_IFDIR else { return }
        let descriptor = inotify_add_watch(inotify, path, Self.mask)
        guard descriptor >= 0 else {
            let code = errno
            let failure = Failure("cannot watch \(path)", code)
            if code == ENOSPC {
                if !state.warnedAboutLimit {
                    logger.warning("auto_update: \(failure); raise fs.inotify.max_user_watches")
                }
                state.warnedAboutLimit = true
            } else {
                logger.info("auto_update: \(failure)")
            }
            return
        }
        // One watch per inode: a link to a directory watched already, or a loop.
        guard state.watches[descriptor] == nil else { return }
        state.watches[descriptor] = Watch(uri: uri, name: name, depth: parentWatch.depth + 1, parent: parent)
        state.watches[parent]?.children[name] = descriptor
        watchChildren(of: descriptor, &state)
    }

    /// Forgets a watch and every watch below it; `removing` also asks the kernel to drop it
    /// (not needed when the kernel said it dropped it: `IN_IGNORED`).
    private func unwatch(_ descriptor: Int32, removing: Bool, _ state: inout State) {
        guard let watch = state.watches.removeValue(forKey: descriptor) else { return }
        if let parent = watch.parent, state.watches[parent]?.children[watch.name] == descriptor {
            state.watches[parent]?.children[watch.name] = nil
        }
        for child in watch.children.values { unwatch(child, removing: true, &state) }
        if removing { _ = inotify_rm_watch(inotify, descriptor) }
    }

    /// After lost events nothing in the table can be trusted: drop every watch below the root
    /// and walk again. Returns how many directories are watched now.
    private func rewatchEverything(_ state: inout State) -> Int {
        if let root = state.watches[rootWatch] {
            for child in root.children.values { unwatch(child, removing: true, &state) }
            watchChildren(of: rootWatch, &state)
        }
        return state.watches.count
    }

    private static func resolved(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
