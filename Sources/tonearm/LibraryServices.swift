import Logging
import MediaLibrary
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The update queue's part in the service group: it runs jobs from the start (the first scan
/// of a new database, `update`, `auto_update`), and at shutdown drops the jobs still waiting,
/// so that none starts while the process ends.
struct UpdateQueueService: Service, CustomStringConvertible {
    /// The library's update queue.
    let updates: UpdateService

    /// The name ServiceLifecycle logs.
    var description: String { "UpdateQueue" }

    func run() async throws {
        // Returning early would end the whole group.
        try? await gracefulShutdown()
        updates.cancelWaitingJobs()
    }
}

/// `auto_update "yes"`: watches the music directory for as long as the service group runs and
/// stops the watcher on graceful shutdown (SIGTERM, SIGINT, `kill`).
///
/// The music directory may be away: missing at start (a disk not yet mounted), or removed,
/// moved or unmounted later. MPD's watcher then stops for good. This one looks for the directory
/// every few seconds and, once it is back, watches it again and updates everything, so that
/// what changed meanwhile reaches the database.
struct AutoUpdateService: Service, CustomStringConvertible {
    /// How often a missing music directory is looked for.
    static let retryInterval: Duration = .seconds(2)

    /// The library whose music directory is watched and whose update queue gets the changes.
    let library: Library
    /// `auto_update_depth`; `nil` is no limit.
    let maxDepth: Int?
    /// Where a watcher that cannot start says so.
    let logger: Logger

    /// The name ServiceLifecycle logs.
    var description: String { "AutoUpdate" }

    func run() async throws {
        let keeper = WatcherKeeper(library: library, maxDepth: maxDepth, logger: logger)
        // Cancelled on graceful shutdown, which ends the sleep at once.
        try? await cancelWhenGracefulShutdown {
            while true {
                await keeper.keepWatching()
                try await Task.sleep(for: Self.retryInterval)
            }
        }
        await keeper.stop()
    }
}

/// The watcher of ``AutoUpdateService`` and whether it has been started before.
private final class WatcherKeeper: Sendable {
    private struct State {
        var watcher: AutoUpdate?
        /// The music directory's device and inode when the watcher started.
        var watchedIdentity: FolderIdentity?
        var startedBefore = false
        var failureLogged = false
    }

    private let library: Library
    private let maxDepth: Int?
    private let logger: Logger
    private let state = Mutex(State())

    init(library: Library, maxDepth: Int?, logger: Logger) {
        self.library = library
        self.maxDepth = maxDepth
        self.logger = logger
    }

    /// Drops a watcher whose directory went away and starts one when there is none: the first
    /// at once, a later one (the directory is back) with an update of everything. A directory
    /// that is another one now (a disk mounted on the empty mount point) counts as gone: the
    /// old watches see nothing of the new file system.
    func keepWatching() async {
        let identity = FolderIdentity(path: library.settings.musicDirectory)
        let lost: AutoUpdate? = state.withLock { state in
            guard let watcher = state.watcher, watcher.hasLostRoot || identity != state.watchedIdentity else {
                return nil
            }
            state.watcher = nil
            return watcher
        }
        if let lost {
            await lost.stop()
            // An update of everything, which the update guard refuses while the directory is
            // away: `status` then says why the library stays as it is.
            _ = try? library.updates.enqueue("", rescan: false)
        }
        state.withLock { state in
            guard state.watcher == nil else { return }
            do {
                state.watcher = try library.startAutoUpdate(maxDepth: maxDepth)
            } catch {
                if !state.failureLogged {
                    // MPD runs on without auto_update; Tonearm tries again every few seconds.
                    logger.error("auto_update waits for the music directory: \(error)")
                    state.failureLogged = true
                }
                return
            }
            if (state.startedBefore || state.failureLogged) && lost == nil {
                logger.notice("auto_update: the music directory is back; updating the library")
                _ = try? library.updates.enqueue("", rescan: false)
            }
            state.watchedIdentity = identity
            state.startedBefore = true
            state.failureLogged = false
        }
    }

    /// Stops the watcher, if one runs.
    func stop() async {
        let watcher = state.withLock { state in
            defer { state.watcher = nil }
            return state.watcher
        }
        await watcher?.stop()
    }
}

/// A folder's device and inode: whether a path still names the same folder.
private struct FolderIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    /// The identity of the folder at `path`, or nil when there is none.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
