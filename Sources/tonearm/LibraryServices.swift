import Logging
import MediaLibrary
import ServiceLifecycle

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
struct AutoUpdateService: Service, CustomStringConvertible {
    /// The library whose music directory is watched and whose update queue gets the changes.
    let library: Library
    /// `auto_update_depth`; `nil` is no limit.
    let maxDepth: Int?
    /// Where a watcher that cannot start says so.
    let logger: Logger

    /// The name ServiceLifecycle logs.
    var description: String { "AutoUpdate" }

    func run() async throws {
        let watcher: AutoUpdate?
        do {
            watcher = try library.startAutoUpdate(maxDepth: maxDepth)
        } catch {
            // As MPD: the server runs on without auto_update.
            logger.error("auto_update is off: \(error)")
            watcher = nil
        }
        // Returning early would end the whole group; wait for the shutdown either way.
        try? await gracefulShutdown()
        await watcher?.stop()
    }
}
