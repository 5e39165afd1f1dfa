public import Logging
public import MediaLibrary
public import Playback
public import ServiceLifecycle

/// Keeps the player's state in `state_file` (MPD's `StateFile`): restores it at start, writes
/// it every `state_file_interval` while it changes, and once more at shutdown, so a restart —
/// or a crash, within one interval — keeps the queue and the position.
public struct StateFileService: Service {
    private let path: String
    private let interval: Duration
    private let restorePaused: Bool
    private let player: PlayerController
    private let library: MediaLibrary?
    private let logger: Logger
    private let outputs: [(name: String, enabled: Bool)]

    /// Creates the service.
    /// - Parameters:
    ///   - interval: `state_file_interval` in seconds (at least 1).
    ///   - restorePaused: `restore_paused`: start paused where the file says playing.
    ///   - outputs: the configured outputs' names and states, for `audio_device_state`.
    public init(
        path: String, interval: Int, restorePaused: Bool, outputs: [(name: String, enabled: Bool)],
        player: PlayerController, library: MediaLibrary?, logger: Logger
    ) {
        self.outputs = outputs
        self.path = path
        self.interval = .seconds(max(1, interval))
        self.restorePaused = restorePaused
        self.player = player
        self.library = library
        self.logger = logger
    }

    /// Saves on change until graceful shutdown, then saves a last time. Call ``restore()``
    /// first, before clients can connect.
    public func run() async throws {
        try? await cancelWhenGracefulShutdown { [player] in
            var saved = player.stateFingerprint()
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                let now = player.stateFingerprint()
                if now != saved {
                    write()
                    saved = now
                }
            }
        }
        write()
    }

    /// Reads the file and gives the player its queue back; songs no longer in the database
    /// are skipped.
    public func restore() async {
        guard let state = StateFile.read(from: path) else { return }
        var songs: [Song?] = []
        songs.reserveCapacity(state.entries.count)
        for entry in state.entries {
            songs.append(try? await library?.song(at: entry.uri))
        }
        player.restore(state, songs: songs, restorePaused: restorePaused)
        logger.info("restored \(songs.compactMap { $0 }.count) of \(state.entries.count) queued songs from \(path)")
    }

    private func write() {
        do {
            var state = player.savedState()
            state.outputs = outputs
            try StateFile.write(state, to: path)
        } catch {
            logger.error("cannot write the state file \(path): \(error)")
        }
    }
}
