package import MusicModel
package import Settings
import Synchronization

/// One partition's player: the queue, the now-playing song, the playback modes and the
/// volume (the Media Player framework's music player, MPD's `playlist` + `PlayerControl`).
///
/// Every change runs under one lock, in the order callers arrive; idle events the change
/// raises are delivered after the lock is released. The audio pipeline is driven through
/// ``AudioPipeline`` and reports back asynchronously.
package final class PlayerController: Sendable {
    /// The partition's name (`default` for the first).
    package let partition: String
    private let core: Mutex<PlayerCore>
    private let pipeline: any AudioPipeline
    private let notify: @Sendable (IdleSubsystems) -> Void
    private let listened: @Sendable (SongListening) -> Void

    /// Creates a stopped player with an empty queue.
    /// - Parameters:
    ///   - maximumLength: `max_playlist_length`.
    ///   - hasMixer: whether an output has a (software) mixer, so that volume is available.
    ///   - replayGainMode: the mode at start (`replaygain`; MPD keeps it out of the state file).
    ///   - shuffleMode: what random mode shuffles until a client or the state file says
    ///     otherwise (`shuffle_mode`).
    ///   - path: maps a song URI to its file.
    ///   - notify: receives the idle events of every change.
    ///   - listened: told, after the lock is released, of each song that stopped being the
    ///     current one and how long it was heard (the server keeps play statistics with it).
    ///     It runs on the thread of the change, a session's or the pipeline's, so it should
    ///     hand slow work elsewhere.
    package init(
        partition: String = "default",
        maximumLength: Int,
        pipeline: any AudioPipeline,
        hasMixer: Bool,
        replayGainMode: ReplayGainMode = .off,
        shuffleMode: ShuffleMode = .songs,
        seed: UInt64? = nil,
        path: @escaping @Sendable (String) -> String,
        notify: @escaping @Sendable (IdleSubsystems) -> Void,
        listened: @escaping @Sendable (SongListening) -> Void = { _ in }
    ) {
        self.partition = partition
        self.pipeline = pipeline
        self.notify = notify
        self.listened = listened
        // A hardware mixer's level is the device's (MPD reads it from the mixer); a software
        // mixer starts at full volume.
        var core = PlayerCore(
            queue: Queue(maximumLength: maximumLength, seed: seed), pipeline: pipeline,
            volume: hasMixer ? (pipeline.hardwareVolume() ?? 100) : nil, path: path)
        core.replayGainMode = replayGainMode
        core.queue.shuffleMode = shuffleMode
        core.configuredShuffleMode = shuffleMode
        core.applyReplayGainMode()
        self.core = Mutex(core)
        pipeline.setEventHandler { [weak self] generation, event in
            self?.update { core in core.handle(event, generation: generation) }
        }
        pipeline.setMixerHandler { [weak self] volume in
            self?.update { core in core.hardwareVolumeChanged(to: volume) }
        }
    }

    /// Runs a change under the lock and then announces what it raised, also when it failed
    /// part-way (a queue that filled up keeps the songs that fitted).
    @discardableResult
    func change<T, Failure: Error>(_ body: (inout PlayerCore) throws(Failure) -> T) throws(Failure) -> T {
        var raised: IdleSubsystems = []
        var heard: [SongListening] = []
        let result: Result<T, Failure> = core.withLock { core in
            defer {
                raised = core.events
                core.events = []
                heard = core.listened
                core.listened = []
            }
            // Named: in the lock's closure an unnamed catch would see `any Error`.
            do throws(Failure) {
                return .success(try body(&core))
            } catch {
                return .failure(error)
            }
        }
        if !raised.isEmpty { notify(raised) }
        for report in heard { listened(report) }
        return try result.get()
    }

    /// A change that cannot fail.
    func update(_ body: (inout PlayerCore) -> Void) {
        change(body)
    }

    private func read<T>(_ body: (borrowing PlayerCore) -> T) -> T { core.withLock { body($0) } }

    // MARK: Reading

    /// The queue as it is now (a copy that later changes do not touch). A copy held while
    /// the queue changes costs the change a copy of the queue: hold it no longer than needed.
    package var queue: Queue { read { $0.queue } }
    /// The number of songs in the queue.
    package var queueLength: Int { read { $0.queue.count } }
    /// The position of the queue entry with `id`, or `nil`.
    package func position(ofID id: Int) -> Int? { read { $0.queue.position(ofID: id) } }

    /// Everything `status` prints, read at one instant.
    package var status: PlayerStatus {
        read { core in
            let pipelineStatus = core.pipeline.status
            let state = core.state
            var status = PlayerStatus(
                volume: core.volume, repeatMode: core.queue.repeatMode, random: core.queue.random,
                shuffleMode: core.queue.shuffleMode,
                single: core.queue.single, consume: core.queue.consume, queueVersion: core.queue.version,
                queueLength: core.queue.count, mixRampDB: core.mixRampDB, state: state,
                lastLoadedPlaylist: core.lastLoadedPlaylist, crossfade: core.crossfade, mixRampDelay: core.mixRampDelay,
                // The pipeline pauses for failed outputs at once and the player hears of it
                // through an event: until then, its message is the error (MPD sets both together).
                error: core.error ?? (core.outputsFailed || state == .stop ? nil : pipelineStatus.outputsFailure))
            if let index = core.current {
                let entry = core.queue.entry(atOrder: index)
                status.current = (core.queue.position(atOrder: index), entry.id)
                if state != .stop {
                    status.elapsed = core.elapsed(ofEntryAtOrder: index, in: pipelineStatus)
                    status.duration = entry.playedDuration
                    status.bitrate = pipelineStatus.bitrate
                    status.audioFormat = entry.song.audioFormat
                    if let stream = core.currentStream, stream.token == entry.id {
                        status.duration = entry.range.length(of: stream.description.duration)
                        status.audioFormat = stream.description.audioFormat
                    }
                }
            }
            if let next = core.nextPosition { status.next = (next, core.queue.id(at: next)) }
            return status
        }
    }

    /// The current song's queue entry and position, if there is one (also while stopped).
    package var currentEntry: (entry: QueueEntry, position: Int)? {
        read { core in
            guard let index = core.current else { return nil }
            let position = core.queue.position(atOrder: index)
            return (core.queue.entry(at: position), position)
        }
    }

    /// The replay gain mode as set (`replay_gain_status`), `auto` included.
    package var replayGainMode: ReplayGainMode { read { $0.replayGainMode } }
    /// The volume, or `nil` without a mixer.
    package var volume: Int? { read { $0.volume } }
    /// Seconds of music played since start, for `stats`.
    package var playedSeconds: Double { pipeline.playedSeconds }

    // MARK: Playback control

    /// `play [POS]`.
    package func play(position: Int?) throws(QueueError) {
        try change { core throws(QueueError) in try core.play(position: position) }
    }
    /// `playid [ID]`.
    package func play(id: Int?) throws(QueueError) {
        try change { core throws(QueueError) in try core.play(id: id) }
    }
    /// `pause [0|1]`; `nil` toggles.
    package func pause(_ paused: Bool?) { update { $0.setPaused(paused) } }
    /// `stop`.
    package func stop() { update { $0.stop() } }
    /// `next`.
    package func next() throws(PlayerError) {
        try change { core throws(PlayerError) in try core.next() }
    }
    /// `previous`.
    package func previous() throws(PlayerError) {
        try change { core throws(PlayerError) in try core.previous() }
    }
    /// `seek POS TIME`.
    package func seek(position: Int, to time: Double) throws(QueueError) {
        try change { core throws(QueueError) in try core.seek(position: position, to: time) }
    }
    /// `seekid ID TIME`.
    package func seek(id: Int, to time: Double) throws(QueueError) {
        try change { core throws(QueueError) in try core.seek(id: id, to: time) }
    }
    /// `seekcur [+-]TIME`.
    package func seekCurrent(_ time: Double, relative: Bool) throws(PlayerError) {
        try change { core throws(PlayerError) in try core.seekCurrent(time, relative: relative) }
    }
    /// `clearerror`.
    package func clearError() { update { $0.error = nil } }

    // MARK: Options

    /// `random 0|1`.
    package func setRandom(_ on: Bool) { update { $0.setRandom(on) } }
    /// `shufflemode off|songs|albums`: `nil` turns random off and keeps the mode.
    package func setShuffle(_ mode: ShuffleMode?) { update { $0.setShuffle(mode) } }
    /// `repeat 0|1`.
    package func setRepeat(_ on: Bool) { update { $0.setRepeat(on) } }
    /// `single 0|1|oneshot`.
    package func setSingle(_ mode: SingleMode) { update { $0.setSingle(mode) } }
    /// `consume 0|1|oneshot`.
    package func setConsume(_ mode: ConsumeMode) { update { $0.setConsume(mode) } }
    /// `crossfade SECONDS`: always announced, as MPD does.
    package func setCrossfade(_ seconds: Int) {
        update { core in
            core.crossfade = seconds
            core.events.insert(.options)
        }
    }
    /// `mixrampdb DB`.
    package func setMixRampDB(_ value: Float) {
        update { core in
            core.mixRampDB = value
            core.events.insert(.options)
        }
    }
    /// `mixrampdelay SECONDS`.
    package func setMixRampDelay(_ value: Float) {
        update { core in
            core.mixRampDelay = value
            core.events.insert(.options)
        }
    }
    /// `replay_gain_mode MODE`: announced every time, as MPD does. The pipeline gets the
    /// mode in effect, `auto` resolved by random.
    package func setReplayGainMode(_ mode: ReplayGainMode) {
        update { core in
            core.replayGainMode = mode
            core.applyReplayGainMode()
            core.events.insert(.options)
        }
    }
    /// `setvol` / `volume`: sets the volume (clamped to 0…100).
    /// - Parameters:
    ///   - alwaysAnnounce: raise `mixer` even when the level stays (`setvol` does, `volume`
    ///     does not).
    /// - Throws: ``MixerError/noMixer`` when no output has one.
    package func setVolume(_ transform: @Sendable (Int) -> Int, alwaysAnnounce: Bool = false) throws(MixerError) {
        try change { core throws(MixerError) in
            guard let volume = core.volume else { throw .noMixer }
            let value = min(100, max(0, transform(volume)))
            guard value != volume || alwaysAnnounce else { return }
            core.volume = value
            core.pipeline.setVolume(value)
            core.events.insert(.mixer)
        }
    }

    /// Whether the partition has a mixer now: an output with one moved in or out
    /// (`moveoutput`). Without one, `status` shows no volume and `setvol` fails; an output
    /// that brings a software mixer starts at full volume, one with a hardware mixer at the
    /// device's level.
    package func setMixerAvailable(_ available: Bool) {
        update { core in
            guard available != (core.volume != nil) else { return }
            guard available else { return core.volume = nil }
            if let hardware = core.pipeline.hardwareVolume() {
                core.volume = hardware
            } else {
                core.volume = 100
                core.pipeline.setVolume(100)
            }
        }
    }

    // MARK: Queue editing

    /// Appends songs, then moves them to `position` if given; returns their ids.
    /// - Parameter bulk: one queue change for all (`add DIR`), or one per song (`findadd`).
    @discardableResult
    package func add(_ songs: [Song], at position: Int? = nil, bulk: Bool = true) throws(QueueError) -> [Int] {
        try change { core throws(QueueError) in try core.append(songs, at: position, bulk: bulk) }
    }
    /// `load`: a playlist's songs, inserted at `position` (else appended) as one queue change;
    /// `status` then shows `name` as `lastloadedplaylist`.
    package func load(_ songs: [Song], at position: Int?, name: String) throws(QueueError) {
        try change { core throws(QueueError) in try core.load(songs, at: position, name: name) }
    }
    /// `clear`.
    package func clear() { update { $0.clear() } }
    /// `delete POS|START:END`.
    package func delete(range: RangeArgument) throws(QueueError) {
        try change { core throws(QueueError) in try core.delete(range: range) }
    }
    /// Removes the queued songs an update removed from the library (not the one playing).
    package func removeStale(_ uris: Set<String>) { update { $0.removeStale(uris) } }
    /// `deleteid ID`.
    package func delete(id: Int) throws(QueueError) {
        try change { core throws(QueueError) in try core.delete(id: id) }
    }
    /// `move START:END TO`.
    package func move(_ range: Range<Int>, to destination: Int) throws(QueueError) {
        try change { core throws(QueueError) in try core.move(range, to: destination) }
    }
    /// `swap POS1 POS2`.
    package func swap(_ first: Int, _ second: Int) throws(QueueError) {
        try change { core throws(QueueError) in try core.swap(first, second) }
    }
    /// `swapid ID1 ID2`.
    package func swap(id first: Int, id second: Int) throws(QueueError) {
        try change { core throws(QueueError) in try core.swap(id: first, id: second) }
    }
    /// `shuffle [START:END]`.
    package func shuffle(_ range: RangeArgument) throws(QueueError) {
        try change { core throws(QueueError) in try core.shuffle(range) }
    }
    /// `prio PRIORITY START:END...`.
    package func setPriority(_ priority: UInt8, ranges: [RangeArgument]) throws(QueueError) {
        try change { core throws(QueueError) in
            for range in ranges { try core.setPriority(priority, range: range) }
        }
    }
    /// `prioid PRIORITY ID...`.
    package func setPriority(_ priority: UInt8, ids: [Int]) throws(QueueError) {
        try change { core throws(QueueError) in
            for id in ids { try core.setPriority(priority, id: id) }
        }
    }
    /// `addtagid ID TAG VALUE`: adds a tag value to a queued stream.
    package func addTag(id: Int, _ type: TagType, _ value: String) throws(QueueError) {
        try change { core throws(QueueError) in try core.editTags(id: id) { $0.append(TagValue(type, value)) } }
    }

    /// `cleartagid ID [TAG]`: removes a queued stream's values of one tag, or all its tags.
    package func clearTags(id: Int, _ type: TagType?) throws(QueueError) {
        try change { core throws(QueueError) in
            try core.editTags(id: id) { tags in tags.removeAll { type == nil || $0.type == type } }
        }
    }

    /// `rangeid ID START:END`.
    package func setRange(id: Int, _ range: SongTimeRange) throws(QueueError) {
        try change { core throws(QueueError) in try core.setRange(id: id, range) }
    }

    /// Runs several changes as one unit (restoring the state file, tests).
    func withCore<T, Failure: Error>(_ body: (inout PlayerCore) throws(Failure) -> T) throws(Failure) -> T {
        try change(body)
    }
}

/// The fields of `status` that come from the player, read at one instant.
package struct PlayerStatus: Sendable {
    /// The volume, or `nil` without a mixer.
    package var volume: Int?
    /// `repeat`.
    package var repeatMode: Bool
    /// `random`.
    package var random: Bool
    /// What random mode shuffles, on or off (`shufflemode`).
    package var shuffleMode: ShuffleMode
    /// `single`.
    package var single: SingleMode
    /// `consume`.
    package var consume: ConsumeMode
    /// `playlist`: the queue version.
    package var queueVersion: UInt32
    /// `playlistlength`.
    package var queueLength: Int
    /// `mixrampdb`.
    package var mixRampDB: Float
    /// `state`.
    package var state: PlayState
    /// `lastloadedplaylist`.
    package var lastLoadedPlaylist: String
    /// `xfade`, printed when above 0.
    package var crossfade: Int
    /// `mixrampdelay`, printed when above 0.
    package var mixRampDelay: Float
    /// `error`.
    package var error: String?
    /// `song` and `songid`.
    package var current: (position: Int, id: Int)?
    /// `elapsed`, while not stopped.
    package var elapsed: Double?
    /// `duration`, while not stopped and known.
    package var duration: Double?
    /// `bitrate`, while not stopped.
    package var bitrate: Int = 0
    /// `audio`, while not stopped and known.
    package var audioFormat: String?
    /// `nextsong` and `nextsongid`.
    package var next: (position: Int, id: Int)?
}
