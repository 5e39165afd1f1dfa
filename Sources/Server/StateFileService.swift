package import Logging
import MPDProtocol
package import MediaLibrary
import MusicModel
import Platform
import Playback
import ServiceLifecycle
import Synchronization

/// Keeps the partitions' state in `state_file` (MPD's `StateFile`): restores it at start,
/// writes it as it changes, and once more at shutdown, so that a restart keeps the queues, the
/// positions and which partition holds which output.
///
/// MPD writes the file every `state_file_interval` (120 s) and at a clean exit, so a power cut
/// or `kill -9` loses up to two minutes of changes. Without `state_file_interval`, Tonearm
/// writes each change within ``changeDelay`` (edits in a burst make one write) and, while a
/// song plays, its position every ``positionInterval``; each write is atomic and synced
/// (``AtomicFile``). With `state_file_interval`, it writes as MPD does, for disks that should
/// see few writes (SD cards).
///
/// The default partition is written in MPD's format; the others follow in Tonearm's blocks
/// (``SavedServerState``), which MPD skips.
///
/// Nothing is looked at while nothing happens: the service sleeps until the player, the queue,
/// the options, the volume, the outputs or the partitions raise their idle event (and once every
/// ``quietCheck`` in case a change raised none), and looks every ``changeDelay`` only while a
/// song plays or a write is due, so an idle server does not wake for it twice a second.
///
/// On the first start, while the new database's first scan runs, no song is known: a file that
/// names songs (MPD's, on a move) is then restored once that scan has finished, and is not
/// overwritten before, so that its queue is neither lost nor replaced by an empty one.
package struct StateFileService: Service, CustomStringConvertible {
    /// How soon a change is written, without `state_file_interval`.
    static let changeDelay: Duration = .milliseconds(500)
    /// How often the position of a song playing is written, without `state_file_interval`.
    static let positionInterval: Duration = .seconds(5)
    /// How often the state is compared with the file while no event comes: a change that raised
    /// no idle event (none is known) is still written.
    static let quietCheck: Duration = .seconds(30)
    /// The idle events of what the file holds.
    static let savedSubsystems: IdleSubsystems = [.player, .playlist, .options, .mixer, .output, .partition]

    private let path: String
    /// `state_file_interval`, or nil for writes within ``changeDelay``.
    private let interval: Duration?
    private let restorePaused: Bool
    private let partitions: PartitionSet
    private let library: Library?
    private let idleBus: IdleBus?
    private let firstScanRunning: Bool
    private let logger: Logger
    /// Where writes (which `fsync`) run, off the cooperative threads.
    private let writer = BlockingWorkQueue(label: "tonearm.statefile")
    /// The last write's failure, logged once until a write succeeds again.
    private let lastFailure = FailureMemory()
    /// A file whose songs could not be read from the database at start (a damaged page):
    /// restored once the database has been checked and, if damaged, scanned again.
    private let deferred = DeferredRestore()

    /// The name ServiceLifecycle logs (rather than every field of the struct).
    package var description: String { "StateFile" }

    /// Creates the service.
    /// - Parameters:
    ///   - interval: `state_file_interval` in seconds (at least 1), or nil to write each change
    ///     within ``changeDelay``.
    ///   - restorePaused: `restore_paused`: start paused where the file says playing.
    ///   - firstScanRunning: the database is new and its first scan has started
    ///     (``Library/updateIfNew()``).
    ///   - idleBus: whose events wake the service; without it, it looks every ``changeDelay``.
    package init(
        path: String, interval: Int?, restorePaused: Bool, partitions: PartitionSet, library: Library?,
        idleBus: IdleBus? = nil, firstScanRunning: Bool = false, logger: Logger
    ) {
        self.idleBus = idleBus
        self.path = path
        self.interval = interval.map { .seconds(max(1, $0)) }
        self.restorePaused = restorePaused
        self.partitions = partitions
        self.library = library
        self.firstScanRunning = firstScanRunning
        self.logger = logger
    }

    /// Saves on change until graceful shutdown, then saves a last time. Call ``restore()``
    /// first, before clients can connect; a file it left for the first scan is restored here,
    /// once that scan has finished, and one whose songs the database could not give (a
    /// damaged page) once the database has been checked and, if damaged, scanned again.
    package func run() async throws {
        if firstScanRunning, let saved = StateFile.readServer(from: path), waitsForFirstScan(saved) {
            // Stopped before the scan finished: the file keeps what it holds.
            guard await waitUntil({ [library] in library?.updates.runningJobID == nil }) else { return }
            if await !restore(saved) {
                logger.error("state file \(path): the queued songs cannot be read; the queue starts empty")
            }
        }
        if let saved = deferred.saved.withLock({ $0 }), let library {
            // Not written over meanwhile: the file keeps the queue until it is restored.
            let before = Snapshot(of: partitions)
            let rebuilt = await waitUntil { [partitions] in
                library.updates.hasCheckedDatabase && library.updates.runningJobID == nil
                    || Snapshot(of: partitions).changes != before.changes
            }
            deferred.saved.withLock { $0 = nil }
            if Snapshot(of: partitions).changes != before.changes {
                // A client queued or played meanwhile: that is kept (and written from now on)
                // rather than replaced by the file.
                logger.warning("state file \(path): not restored, the queue was changed before the database was ready")
            } else if !rebuilt {
                return
            } else if await !restore(saved) {
                logger.error("state file \(path): the queued songs still cannot be read; restored without them")
                _ = await restore(saved, songs: [:])
            }
        }
        let changes = interval == nil ? changeSignals() : nil
        defer { changes?.ticker.cancel() }
        try? await cancelWhenGracefulShutdown { [self] in
            var written = Snapshot(of: partitions)
            var writtenAt = ContinuousClock.now
            var signals = changes?.signals.makeAsyncIterator()
            while !Task.isCancelled {
                if signals != nil, !written.playing, Snapshot(of: partitions).changes == written.changes {
                    // Nothing due: sleep until something changes (nil: shutting down).
                    guard await signals?.next() != nil else { break }
                }
                try await Task.sleep(for: interval ?? Self.changeDelay)
                let now = Snapshot(of: partitions)
                let due: Bool
                if interval != nil {
                    // MPD's rule: anything changed since the last write, the position included.
                    due = now != written
                } else {
                    due =
                        now.changes != written.changes
                        || (now.playing && now.positions != written.positions
                            && ContinuousClock.now - writtenAt >= Self.positionInterval)
                }
                // A write that failed (a full disk) is tried again at the next turn.
                guard due, await write() else { continue }
                written = now
                writtenAt = .now
            }
        }
        await write()
    }

    /// Waits until `ready` holds, looking every 100 ms: false when a graceful shutdown came first.
    /// Polled rather than notified, so that a shutdown ends the wait at once.
    private func waitUntil(_ ready: @escaping @Sendable () -> Bool) async -> Bool {
        let waited: Void? = try? await cancelWhenGracefulShutdown {
            while !ready() { try await Task.sleep(for: .milliseconds(100)) }
        }
        return waited != nil
    }

    /// A signal for every idle event of what the file holds, and one every ``quietCheck`` from
    /// `ticker` (cancel it when done); nil without an idle bus. At most one signal waits: a
    /// burst of events is one look.
    private func changeSignals() -> (signals: AsyncStream<Void>, ticker: Task<Void, Never>)? {
        guard let idleBus else { return nil }
        let (signals, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        idleBus.observe(Self.savedSubsystems) { continuation.yield() }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.quietCheck)
                continuation.yield()
            }
        }
        return (signals, ticker)
    }

    /// Reads the file and gives each partition its queue and outputs back, making the
    /// partitions it names; songs no longer in the database are skipped. A file that names songs
    /// while the first scan runs is left to ``run()``.
    package func restore() async {
        guard let saved = StateFile.readServer(from: path) else { return }
        guard !waitsForFirstScan(saved) else {
            logger.notice("the database is new: the state file \(path) is restored once the first update has finished")
            return
        }
        if await !restore(saved) {
            deferred.saved.withLock { $0 = saved }
        }
    }

    /// Whether `saved` names songs that the running first scan has yet to find.
    private func waitsForFirstScan(_ saved: SavedServerState) -> Bool {
        firstScanRunning
            && (!saved.main.entries.isEmpty || saved.partitions.contains { !$0.state.entries.isEmpty })
    }

    /// Gives each partition its queue and outputs back, making the partitions `saved` names.
    /// - Returns: `false`, with nothing restored, when the database could not be read for the
    ///   queued songs.
    private func restore(_ saved: SavedServerState) async -> Bool {
        // The library's songs in batches (`IN (…)` lists), not one lookup per entry: a
        // 100,000-song queue came back in 2.1 s that way, against MPD's 0.8 s.
        let files = ([saved.main] + saved.partitions.map(\.state)).flatMap { state in
            state.entries.lazy.map(\.uri).filter { !RemoteStream.isSupported($0) }
        }
        do {
            return await restore(saved, songs: try await library?.songs(atURIs: files) ?? [:])
        } catch {
            logger.warning(
                "state file \(path): cannot read its songs from the database (\(error)); the queue is restored once the database has been checked"
            )
            return false
        }
    }

    /// Gives each partition its queue and outputs back with the songs `songsByURI` holds
    /// (the others, streams aside, are skipped). - Returns: `true`.
    private func restore(_ saved: SavedServerState, songs songsByURI: [String: Song]) async -> Bool {
        let main = partitions.defaultPartition
        restore(saved.main, into: main, found: songsByURI)
        // As MPD reads `audio_device_state`: only a disabled output changes anything.
        for output in saved.main.outputs where !output.enabled {
            if let id = main.outputStatuses.first(where: { $0.name == output.name })?.id {
                _ = main.setOutput(id, enabled: false)
            }
        }
        for block in saved.partitions {
            var found = partitions.named(block.name)
            do {
                if found == nil { found = try await partitions.create(block.name) }
            } catch {
                logger.error("state file: partition \(block.name): \(error.message)")
                continue
            }
            guard let partition = found else { continue }
            // The outputs first, so that a partition restored playing or paused sends its
            // song to them from the first chunk.
            for output in block.state.outputs {
                do {
                    try await partitions.moveOutput(named: output.name, into: partition)
                    if let id = partition.outputStatuses.first(where: { $0.name == output.name })?.id {
                        _ = partition.setOutput(id, enabled: output.enabled)
                    }
                } catch {
                    logger.warning("state file: output \(output.name) for partition \(block.name): \(error.message)")
                }
            }
            restore(block.state, into: partition, found: songsByURI)
        }
        return true
    }

    /// Gives `partition` its queue, with the songs the library `found` by URI.
    private func restore(_ state: SavedPlayerState, into partition: Partition, found: [String: Song]) {
        let songs: [Song?] = state.entries.map { entry in
            RemoteStream.isSupported(entry.uri) ? Song(streamURL: entry.uri, tags: entry.tags) : found[entry.uri]
        }
        partition.player.restore(state, songs: songs, restorePaused: restorePaused)
        logger.info(
            """
            restored \(songs.compactMap { $0 }.count) of \(state.entries.count) queued songs \
            of partition \(partition.name) from \(path)
            """)
    }

    /// What the file would say, in brief: what changes only when someone changes it, and the
    /// positions in the songs, which move by themselves while they play.
    private struct Snapshot: Equatable {
        var changes: [[Int]]
        var positions: [Int]
        var playing: Bool

        init(of partitions: PartitionSet) {
            let all = partitions.all
            changes = all.map { partition in
                partition.player.stateFingerprint() + [partition.name.hashValue]
                    + partition.outputStatuses.map {
                        $0.name.hashValue &+ ($0.enabled ? 1 : 0) &+ ($0.plugin.hashValue)
                    }
            }
            let statuses = all.map(\.player.status)
            positions = statuses.map { Int($0.elapsed ?? -1) }
            playing = statuses.contains { $0.state == .play }
        }
    }

    /// Writes the file on the writer's queue. A failure (a full disk) is logged once, the file
    /// keeping the state written before; the next write that succeeds says so.
    /// - Returns: whether it was written.
    @discardableResult
    private func write() async -> Bool {
        let all = partitions.all
        let state = SavedServerState(
            main: saved(all[0]), partitions: all.dropFirst().map { .init(name: $0.name, state: saved($0)) })
        let result: Result<Void, AtomicFile.Failure> = await writer.run { [path] in
            Result { () throws(AtomicFile.Failure) in try StateFile.write(state, to: path) }
        }
        // The same failure again (each try has a temporary file of its own) is not logged again.
        let failure: AtomicFile.Failure? = if case .failure(let failure) = result { failure } else { nil }
        let kind = failure.map { "\($0.step) \($0.code)" }
        let previous = lastFailure.kind.withLock { last in
            defer { last = kind }
            return last
        }
        if let failure, kind != previous {
            logger.error("cannot write the state file \(path): \(failure); it keeps the state written before")
        } else if failure == nil, previous != nil {
            logger.notice("the state file \(path) is written again")
        }
        return failure == nil
    }

    /// A partition's state with the outputs it holds, in its order.
    private func saved(_ partition: Partition) -> SavedPlayerState {
        var state = partition.player.savedState()
        state.outputs = partition.heldOutputStatuses.map { ($0.name, $0.enabled) }
        return state
    }
}

/// A state file whose restore waits for the database (``StateFileService``'s `deferred`).
private final class DeferredRestore: Sendable {
    let saved = Mutex<SavedServerState?>(nil)
}

/// The last failure of a repeated operation, so that it is logged once rather than each time.
private final class FailureMemory: Sendable {
    /// What failed and why (the step and the error number), or nil after a success.
    let kind = Mutex<String?>(nil)
}
