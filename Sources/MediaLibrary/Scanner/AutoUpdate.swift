import Dispatch
import Logging
import MusicModel
import Synchronization

/// `auto_update "yes"`: a `DirectoryWatcher` on the music directory feeding the update queue
/// through a `ChangeQueue`, so changes on disk reach the database within seconds, with the same
/// idle events (`update`, `database`) and `updating_db` status as an `update` command.
package final class AutoUpdate: Sendable {
    private let watcher: DirectoryWatcher
    private let changes: ChangeQueue
    private let lostRoot: RootLoss

    init(watcher: DirectoryWatcher, changes: ChangeQueue, lostRoot: RootLoss) {
        self.watcher = watcher
        self.changes = changes
        self.lostRoot = lostRoot
    }

    /// The URIs of the watched directories, sorted.
    package var watchedDirectories: [String] { watcher.watchedDirectories }

    /// Whether the music directory went away (removed, moved, unmounted): this watcher sees
    /// nothing any more, and a new one is needed once the directory is back.
    package var hasLostRoot: Bool { lostRoot.flag.load(ordering: .relaxed) }

    /// Stops watching and drops changes not yet handed to the update queue; an update job
    /// already queued or running finishes (or dies with the process: its transaction leaves the
    /// previous database).
    package func stop() async {
        await watcher.stop()
        changes.stop()
    }
}

extension Library {
    /// Starts `auto_update`: watches the music directory down to `maxDepth` (`nil`: no limit)
    /// and queues an update of each changed directory once the disk has been quiet for `delay`.
    /// MPD waits 5 s; Tonearm's default of 1 s still turns a copied album into one job.
    /// - Throws: `DirectoryWatcher.Failure` when inotify is unavailable or the music directory
    ///   cannot be watched.
    package func startAutoUpdate(maxDepth: Int?, delay: Duration = .seconds(1)) throws -> AutoUpdate {
        let changes = ChangeQueue(updates: updates, delay: delay, logger: logger)
        let database = settings.databasePath
        let lostRoot = RootLoss()
        let watcher = try DirectoryWatcher(
            walker: walker,
            maxDepth: maxDepth,
            ignoredPaths: [database, database + "-wal", database + "-shm", database + "-journal"],
            logger: logger
        ) { event in
            switch event {
            case .changed(let uri):
                changes.add(uri)
            case .rootLost:
                lostRoot.flag.store(true, ordering: .relaxed)
            case .watching:
                break
            }
        }
        return AutoUpdate(watcher: watcher, changes: changes, lostRoot: lostRoot)
    }
}

/// Set on the watcher's thread when the music directory goes away, read by whoever keeps the
/// watcher running.
final class RootLoss: Sendable {
    /// Whether the music directory went away.
    let flag = Atomic<Bool>(false)
}

/// MPD's `InotifyQueue`: collects the URIs the watcher reports and, once no change came for
/// `delay` (or at the latest `5 × delay` after the first one, so a disk that never rests is still
/// looked at), enqueues one update job per part of the library, a URI inside another one merged
/// into it. When the update queue is full it tries again after `delay`, as MPD does.
final class ChangeQueue: Sendable {
    /// More separate URIs than this become one update of the directory holding them all, so a
    /// burst all over the library cannot fill the update queue (32 jobs).
    static let mostJobs = UpdateService.maximumQueued / 2

    private struct State {
        var pending: [String] = []
        var firstChange: UInt64 = 0
        var lastChange: UInt64 = 0
        var timerArmed = false
        var stopped = false
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "tonearm.autoupdate", qos: .utility)
    private let updates: UpdateService
    private let delay: UInt64
    private let logger: Logger

    init(updates: UpdateService, delay: Duration, logger: Logger) {
        self.updates = updates
        let (seconds, attoseconds) = delay.components
        self.delay = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        self.logger = logger
    }

    /// Notes that `uri` changed.
    func add(_ uri: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        let arm: Bool = state.withLock { state in
            guard !state.stopped else { return false }
            if state.pending.isEmpty { state.firstChange = now }
            state.lastChange = now
            state.pending = Self.merging(uri, into: state.pending)
            defer { state.timerArmed = true }
            return !state.timerArmed
        }
        if arm { armTimer(at: now + delay) }
    }

    /// Drops what is pending and ignores what comes.
    func stop() {
        state.withLock { state in
            state.stopped = true
            state.pending = []
        }
    }

    private func armTimer(at uptime: UInt64) {
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: uptime)) { [self] in fire() }
    }

    /// The one timer: hands the pending URIs to the update queue when they are due, else
    /// re-arms itself for when they will be.
    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        enum Next { case wait(UInt64), run([String]), idle }
        let next: Next = state.withLock { state in
            guard !state.stopped, !state.pending.isEmpty else {
                state.timerArmed = false
                return .idle
            }
            let due = min(state.lastChange + delay, state.firstChange + 5 * delay)
            if now < due { return .wait(due) }
            state.timerArmed = false
            defer { state.pending = [] }
            return .run(Self.collapsed(state.pending, limit: Self.mostJobs))
        }
        switch next {
        case .idle: return
        case .wait(let due): armTimer(at: due)
        case .run(let uris): enqueue(uris)
        }
    }

    private func enqueue(_ uris: [String]) {
        for (index, uri) in uris.enumerated() {
            do throws(LibraryError) {
                let job = try updates.enqueue(uri, rescan: false)
                logger.debug("auto_update: updating \"\(uri)\" (job \(job))")
            } catch .updateQueueFull {
                // The queue is full: keep the rest and try again later.
                let now = DispatchTime.now().uptimeNanoseconds
                let arm: Bool = state.withLock { state in
                    guard !state.stopped else { return false }
                    for uri in uris[index...] { state.pending = Self.merging(uri, into: state.pending) }
                    state.firstChange = now
                    state.lastChange = now
                    defer { state.timerArmed = true }
                    return !state.timerArmed
                }
                if arm { armTimer(at: now + delay) }
                return
            } catch {
                logger.error("auto_update: cannot update \"\(uri)\": \(error)")
            }
        }
    }

    /// Whether `uri` is `parent` or lies below it (`""` holds everything).
    static func contains(_ parent: String, _ uri: String) -> Bool {
        parent.isEmpty || uri == parent || uri.hasPrefix(parent + "/")
    }

    /// `pending` with `uri` added: nothing changes when a pending URI holds it already, and
    /// pending URIs inside it give way to it.
    static func merging(_ uri: String, into pending: [String]) -> [String] {
        if pending.contains(where: { contains($0, uri) }) { return pending }
        return pending.filter { !contains(uri, $0) } + [uri]
    }

    /// `uris`, or, when there are more than `limit`, the deepest directory holding them all.
    static func collapsed(_ uris: [String], limit: Int) -> [String] {
        guard uris.count > limit, var common = uris.first?.split(separator: "/") else { return uris }
        for uri in uris.dropFirst() {
            let components = uri.split(separator: "/")
            var shared = 0
            while shared < min(common.count, components.count) && common[shared] == components[shared] { shared += 1 }
            common.removeLast(common.count - shared)
        }
        return [common.joined(separator: "/")]
    }
}
