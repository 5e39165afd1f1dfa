import Dispatch
import Foundation
import GRDB
import Logging
import Platform
import Synchronization

/// What the library tells the rest of the server about.
package enum LibraryEvent: Sendable, Equatable {
    /// An update job started or finished (idle `update`).
    case update
    /// The database changed (idle `database`).
    case database
    /// Stickers of songs, tag values or filters that left the database were removed (idle
    /// `sticker`).
    case sticker
    /// An update removed these songs from the database: the queues drop them, as MPD's do.
    case songsRemoved(Set<String>)
}

/// Runs `update` and `rescan` jobs one at a time on a background queue, as MPD's
/// `UpdateService` does: each job gets an id at once, later jobs wait in a bounded queue.
package final class UpdateService: Sendable {
    /// MPD's limit on waiting jobs.
    static let maximumQueued = 32
    /// Job ids wrap around after this, as in MPD.
    static let maximumJobID = 1 << 15

    private struct Job {
        let id: Int
        let uri: String
        let rescan: Bool
    }

    private struct State {
        var pending: [Job] = []
        var running: Job?
        var lastID = 0
        /// Why the last update was refused or failed, until one succeeds or `clearerror`.
        var failure: String?
        /// Whether ``checkDatabase(path:)`` has finished, its rebuild queued if it found damage.
        var checked = false
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "tonearm.update", qos: .utility)
    private let scanner: MusicFolderScanner
    private let stickers: StickerStore?
    private let parseFilterSticker: FilterStickerParser?
    private let logger: Logger
    /// The least time between two progress lines of a job (``ScanProgress``).
    private let progressInterval: Duration
    private let onEvent: @Sendable (LibraryEvent) -> Void

    /// - Parameters:
    ///   - stickers: the sticker database to clean up after each update that changed the
    ///     music database.
    ///   - parseFilterSticker: reads a `filter` sticker's name back into its filter, for that
    ///     cleanup.
    ///   - progressInterval: the least time between two progress lines of a long job.
    init(
        scanner: MusicFolderScanner, stickers: StickerStore?, parseFilterSticker: FilterStickerParser?, logger: Logger,
        progressInterval: Duration = .seconds(5), onEvent: @escaping @Sendable (LibraryEvent) -> Void
    ) {
        self.scanner = scanner
        self.stickers = stickers
        self.parseFilterSticker = parseFilterSticker
        self.logger = logger
        self.progressInterval = progressInterval
        self.onEvent = onEvent
    }

    /// Whether the check of the database at start has finished: with ``runningJobID`` nil
    /// too, a damaged database has been scanned again.
    package var hasCheckedDatabase: Bool { state.withLock { $0.checked } }

    /// The id of the job running now, for `status`'s `updating_db`.
    package var runningJobID: Int? { state.withLock { $0.running?.id } }

    /// Why the last update was refused (``UpdateGuard``: the music is away) or failed (a full
    /// disk), which `status` shows as its `error`; nil once an update succeeds, or after
    /// ``clearError()``.
    package var error: String? { state.withLock { $0.failure } }

    /// Forgets the failure (`clearerror`); the next one is reported again.
    package func clearError() { state.withLock { $0.failure = nil } }

    /// Drops the jobs that wait behind the running one, as MPD cancels its update queue at
    /// shutdown; the running job finishes, or dies with the process, its transaction leaving
    /// the previous database.
    package func cancelWaitingJobs() {
        state.withLock { $0.pending.removeAll() }
    }

    /// Closes the database at shutdown, once nothing queues jobs any more, on the update queue
    /// so that it waits for the last job's clean-up. A job that still runs is not waited for:
    /// its transaction dies with the process, and SQLite recovers the database as it was from
    /// its WAL at the next start.
    /// - Returns: whether the database was closed.
    package func closeDatabase() -> Bool {
        guard state.withLock({ $0.running == nil }) else { return false }
        return queue.sync {
            do {
                try scanner.store.close()
                return true
            } catch {
                logger.error("cannot close the database: \(error)")
                return false
            }
        }
    }

    /// Queues an update of `uri` (`""` for everything) and returns its job id.
    /// - Throws: ``LibraryError/updateQueueFull`` when 32 jobs wait already.
    package func enqueue(_ uri: String, rescan: Bool) throws(LibraryError) -> Int {
        let result: Result<(Job, startNow: Bool), LibraryError> = state.withLock { state in
            guard state.pending.count < Self.maximumQueued else {
                return .failure(.updateQueueFull)
            }
            state.lastID = state.lastID >= Self.maximumJobID ? 1 : state.lastID + 1
            let job = Job(id: state.lastID, uri: uri, rescan: rescan)
            if state.running == nil {
                state.running = job
                return .success((job, true))
            }
            state.pending.append(job)
            return .success((job, false))
        }
        let (job, startNow) = try result.get()
        if startNow { start(job) }
        return job.id
    }

    private func start(_ job: Job) {
        onEvent(.update)
        queue.async { [self] in
            run(job)
        }
    }

    private func run(_ job: Job) {
        var current = job
        while true {
            // Progress and summary at `notice`, the default level, as MPD's update messages are.
            var progress = ScanProgress(job: current.id, uri: current.uri, interval: progressInterval)
            do {
                let now = Int64(Date().timeIntervalSince1970)
                let outcome = try scanner.update(current.uri, rescan: current.rescan, now: now, progress: &progress)
                if !outcome.removedSongs.isEmpty { onEvent(.songsRemoved(Set(outcome.removedSongs))) }
                if outcome.changed || outcome.reread { onEvent(.database) }
                // Only a change can leave a sticker without its song, tag value or filter.
                if outcome.changed { removeOrphanedStickers() }
                state.withLock { $0.failure = nil }
                logger.notice("\(progress.summary(elapsed: .now - progress.started))")
            } catch LibraryError.updateRefused(let reason) {
                state.withLock { $0.failure = "update refused: \(reason)" }
                logger.error("update job \(current.id) refused: \(reason)")
            } catch {
                // Its transaction rolled back: the database is as it was before the job.
                logger.error("update of \"\(current.uri)\" failed: \(error)")
                state.withLock { $0.failure = "update failed: \(Self.reason(error))" }
            }
            let next: Job? = state.withLock { state in
                let next = state.pending.isEmpty ? nil : state.pending.removeFirst()
                state.running = next
                // One event marks both the end of this job and the start of the next: idle flags
                // merge, so a second one back to back would tell a client nothing more. Raised
                // under the lock that `updating_db` is read under, as MPD's main thread ends the
                // job and raises the event in one step: a client that no longer sees the job has
                // been told already (a client that idles after it gets no stale `update`), and a
                // client told sees the job gone.
                onEvent(.update)
                return next
            }
            guard let next else {
                releaseMemory()
                return
            }
            current = next
        }
    }

    /// Runs ``LibraryStore/firstDamage()`` on the update queue, between jobs; a damaged database
    /// is reset (its copy kept at `PATH.damaged`) and scanned again with a job of its own.
    func checkDatabase(path: String) {
        queue.async { [self] in
            // Set last, after the rebuild is queued (`enqueue` marks it running at once).
            defer { state.withLock { $0.checked = true } }
            let started = ContinuousClock.now
            let damage: String?
            do {
                damage = try scanner.store.firstDamage()
            } catch {
                damage = "\(error)"
            }
            guard let damage else {
                logger.info("the database \(path) is intact (checked in \(ContinuousClock.now - started))")
                return
            }
            do {
                try scanner.store.reset(keepingCopyAt: path + ".damaged", of: path)
            } catch {
                logger.error("the database \(path) is damaged (\(damage)) and cannot be reset: \(error)")
                return
            }
            logger.error(
                "the database \(path) is damaged (\(damage)); copied it to \(path).damaged and scanning the music folder again"
            )
            onEvent(.database)
            _ = try? enqueue("", rescan: true)
        }
    }

    /// SQLite's own words for a failed update (`database or disk is full`), without the
    /// statement that GRDB adds; any other error as it describes itself.
    private static func reason(_ error: any Error) -> String {
        (error as? DatabaseError)?.message ?? "\(error)"
    }

    /// Gives back what the jobs left behind once the queue is idle: SQLite's page caches (the
    /// writer's, and the readers', which the pool reopens on demand) and the heap pages their
    /// garbage freed. A 100,000-song scan otherwise leaves several MiB resident for good.
    private func releaseMemory() {
        scanner.store.releaseMemory()
        ProcessMemory.returnFreePages()
    }

    /// Deletes the stickers of what the update removed (``StickerCleanup``), on this queue so
    /// that no other update runs meanwhile.
    private func removeOrphanedStickers() {
        guard let stickers else { return }
        do {
            let deleted = try StickerCleanup.run(
                stickers: stickers, library: scanner.store, parseFilter: parseFilterSticker)
            guard deleted > 0 else { return }
            logger.info("removed \(deleted) stickers of songs, tags or filters no longer in the database")
            onEvent(.sticker)
        } catch {
            logger.error("sticker cleanup failed: \(error)")
        }
    }
}
