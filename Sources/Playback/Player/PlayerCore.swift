import MusicModel
import Settings

/// The player's mutable state and the rules that change it (MPD's `playlist` together with
/// what it asks of `PlayerControl`). ``PlayerController`` owns one and serialises all access;
/// every method here runs under its lock.
///
/// `current` and `queued` are play-order indices into ``queue``. `playing` says whether the
/// player is meant to play (or be paused); while stopped, `current` may still select a song.
struct PlayerCore: Sendable {
    var queue: Queue
    let pipeline: any AudioPipeline
    /// Maps a song URI to the file to play.
    let path: @Sendable (String) -> String

    var current: Int?
    var queued: Int?
    var playing = false
    /// The pipeline generation whose events are current.
    var generation: UInt64 = 0
    var error: String?
    var errorCount = 0
    var stopOnError = false
    /// No output could play: the pipeline paused on the current song (``PipelineEvent/outputsFailed(_:)``),
    /// and resuming starts it again where it was heard, which tries the outputs again.
    var outputsFailed = false

    var crossfade = 0 { didSet { applyCrossfade() } }
    var mixRampDB: Float = 0 { didSet { applyCrossfade() } }
    var mixRampDelay: Float = -1 { didSet { applyCrossfade() } }
    /// The partition's replay gain mode as the client set it (`auto` included); the
    /// pipeline gets the mode in effect (``applyReplayGainMode()``).
    var replayGainMode: ReplayGainMode = .off
    /// The shuffle mode the configuration chose (`shuffle_mode`): the state file names the
    /// mode only when it differs, so that with the default it stays MPD's file to the byte.
    var configuredShuffleMode = ShuffleMode.songs
    /// The software volume, or `nil` when no output has a mixer.
    var volume: Int?
    var lastLoadedPlaylist = ""
    /// What the current song, a stream, said about itself: `status` shows its duration and
    /// format, which no database has.
    var currentStream: (token: Int, description: StreamDescription)?

    /// Idle events raised by the running operation, sent once the lock is released.
    var events: IdleSubsystems = []
    /// The song being listened to, for ``listened``.
    var listening: ListeningRecord?
    /// Songs that stopped being current during the running operation, reported with the
    /// events once the lock is released.
    var listened: [SongListening] = []
    private var bulkEdit = false
    private var bulkModified = false

    init(queue: Queue, pipeline: any AudioPipeline, volume: Int?, path: @escaping @Sendable (String) -> String) {
        self.queue = queue
        self.pipeline = pipeline
        self.volume = volume
        self.path = path
    }

    var currentPosition: Int? { current.map { queue.position(atOrder: $0) } }

    /// Tells the pipeline the replay gain mode in effect: `auto` follows random (MPD's
    /// `UpdateEffectiveReplayGainMode`, run when either changes).
    func applyReplayGainMode() {
        pipeline.setReplayGainMode(ReplayGainSettings.effectiveMode(replayGainMode, random: queue.random))
    }

    /// Tells the pipeline the crossfade and MixRamp settings (`crossfade`, `mixrampdb`,
    /// `mixrampdelay`, as commands or the state file set them).
    func applyCrossfade() {
        pipeline.setCrossfade(
            CrossfadeSettings(seconds: Double(crossfade), mixRampDB: mixRampDB, mixRampDelay: mixRampDelay))
    }

    /// MPD's `GetNextPosition`: what `status` shows as `nextsong`.
    var nextPosition: Int? {
        guard let current else { return nil }
        if queue.single != .off && queue.repeatMode { return queue.position(atOrder: current) }
        if current + 1 < queue.count { return queue.position(atOrder: current + 1) }
        if queue.repeatMode { return queue.position(atOrder: 0) }
        return nil
    }

    /// The state `status` shows.
    var state: PlayState {
        guard playing else { return .stop }
        let reported = pipeline.status.state
        return reported == .stop ? .play : reported
    }

    // MARK: Change bookkeeping

    /// A queue change: bump the version and raise `playlist` (once per bulk edit).
    mutating func modified() {
        if bulkEdit {
            bulkModified = true
            return
        }
        queue.incrementVersion()
        events.insert(.playlist)
    }

    /// Starts an edit of many songs that counts as one change.
    mutating func beginBulk() {
        bulkEdit = true
        bulkModified = false
    }

    /// Ends a bulk edit: queues a next song if none was, and announces the change once.
    mutating func commitBulk() {
        bulkEdit = false
        guard bulkModified else { return }
        if queued == nil { updateQueuedSong(previous: nil) }
        modified()
    }

    // MARK: Playing

    func track(atOrder index: Int) -> PipelineTrack {
        let entry = queue.entry(atOrder: index)
        return PipelineTrack(
            token: entry.id, path: entry.song.isStream ? entry.song.uri : path(entry.song.uri), uri: entry.song.uri,
            start: entry.range.start,
            end: entry.range.end,
            duration: entry.song.duration, audioFormat: entry.song.audioFormat, tags: entry.song.tags)
    }

    /// The id of the queued song while playing, MPD's `GetQueuedSong` (compared by identity).
    var queuedSongID: Int? {
        guard playing, let queued else { return nil }
        return queue.id(atOrder: queued)
    }

    /// Starts the song at play-order `index`.
    mutating func playOrder(_ index: Int, paused: Bool = false, offset: Double? = nil) {
        playing = true
        outputsFailed = false
        queued = nil
        current = index
        currentStream = nil
        beginListening(atOrder: index)
        generation = pipeline.play(
            track(atOrder: index), from: offset ?? queue.entry(atOrder: index).range.start, paused: paused)
        events.insert(.player)
        songStarted()
        updateQueuedSong(previous: nil)
    }

    /// A hardware mixer of the partition's outputs reports a level: `status` shows it, and
    /// clients hear idle `mixer` when it differs from what they last saw (someone turned the
    /// card's volume outside Tonearm).
    mutating func hardwareVolumeChanged(to level: Int) {
        guard let volume, volume != level else { return }
        self.volume = level
        events.insert(.mixer)
    }

    /// A song's priority drops to 0 once it starts.
    mutating func songStarted() {
        guard let current else { return }
        if queue.setPriority(position: queue.position(atOrder: current), 0, after: nil, reorder: false) { modified() }
    }

    /// Tells the pipeline which song follows the current one (MPD's `UpdateQueuedSong`).
    /// - Parameter previous: the id of the song queued before the change, if any.
    mutating func updateQueuedSong(previous: Int?) {
        guard playing else { return }
        if previous == nil && bulkEdit { return }
        var next: Int? = 0
        if let current { next = queue.nextOrder(after: current) }
        if next == 0 && queue.random && queue.single == .off, let position = currentPosition {
            // A full round is over: reshuffle so the next round plays in another order. Album
            // shuffle puts the playing album last, so that the new round starts after it
            // whether the song ends or `next` skips it.
            queue.shuffleOrder()
            current =
                queue.shuffleMode == .albums
                ? queue.moveAlbumToEnd(ofPosition: position) : queue.orderIndex(ofPosition: position)
        }
        let nextID = next.map { queue.id(atOrder: $0) }
        if previous != nil && nextID != previous {
            pipeline.enqueue(nil)
            queued = nil
        }
        if let next {
            if nextID != previous { pipeline.enqueue(track(atOrder: next)) }
            queued = next
        } else if previous == nil {
            // Say so explicitly: the pipeline waits at the end of a song until it knows
            // whether another follows, so that the song after a short one is never missed.
            pipeline.enqueue(nil)
        }
    }

    /// Stops playback; the current song stays selected.
    mutating func stop() {
        guard playing else { return }
        endListening(leftByUser: false)
        pipeline.stop()
        queued = nil
        playing = false
        outputsFailed = false
        events.insert(.player)
        if queue.random, let position = currentPosition {
            // The next `play` should start a fresh random round with the same song.
            queue.shuffleOrder()
            current = queue.orderIndex(ofPosition: position)
        }
    }

    /// `play [POS]`: without a position resumes, or starts the current or first song.
    mutating func play(position: Int?) throws(QueueError) {
        error = nil
        var index: Int
        if let position {
            guard position >= 0 && position < queue.count else { throw .badSongIndex }
            index = position
        } else {
            if queue.isEmpty { return }
            if playing {
                setPaused(false)
                return
            }
            index = current ?? 0
        }
        if queue.random {
            if position != nil { index = queue.orderIndex(ofPosition: index) }
            if queue.shuffleMode == .albums {
                index = queue.moveOrder(from: index, to: albumShufflePlace(forChosen: index))
                queue.gatherAlbum(afterOrder: index)
            } else {
                if !playing { current = 0 }
                // Swap the chosen song into the current place so the rest of the round stays as planned.
                queue.swapOrders(index, current!)
                index = current!
            }
        }
        stopOnError = false
        errorCount = 0
        leaveForUserChoice(atOrder: index)
        playOrder(index)
    }

    /// Where a song chosen with `play` goes in album shuffle: first when nothing plays, else
    /// right after the current song, which stays among the played ones. A move, not the swap
    /// of song shuffle, which would split the album whose song took the chosen one's place.
    private func albumShufflePlace(forChosen index: Int) -> Int {
        guard playing, let current else { return 0 }
        if index > current { return current + 1 }
        return current
    }

    /// `playid [ID]`.
    mutating func play(id: Int?) throws(QueueError) {
        guard let id else { return try play(position: nil) }
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        try play(position: position)
    }

    /// `pause [0|1]`; `nil` toggles. No effect while stopped.
    mutating func setPaused(_ paused: Bool?) {
        guard playing else { return }
        let isPaused = pipeline.status.state == .pause
        let target = paused ?? !isPaused
        guard target != isPaused else { return }
        let status = pipeline.status
        if !target && outputsFailed, let current {
            // MPD reopens its outputs when playback resumes after they failed.
            playOrder(current, offset: status.elapsed)
            return
        }
        pipeline.setPaused(target)
        events.insert(.player)
    }

    /// The next song in play order (MPD's `PlayNext`), removing the played one in consume mode.
    mutating func playNext() {
        guard playing, let old = current else { return }
        stopOnError = false
        if let next = queue.nextOrder(after: old) {
            if next == 0 && queue.random { queue.shuffleOrder() }
            playOrder(next)
        } else {
            stop()
            current = nil
        }
        if queue.consume != .off { deleteOrder(old) }
        if queue.consume == .oneshot {
            queue.consume = .off
            events.insert(.options)
        }
    }

    /// `next`: as at the end of the song, except that `single` does not stop it.
    mutating func next() throws(PlayerError) {
        guard playing else { throw .notPlaying }
        endListening(leftByUser: true)
        let single = queue.single
        queue.single = .off
        playNext()
        queue.single = single
    }

    /// `previous`: the song before in play order; at the start, the last one with repeat,
    /// otherwise the current song again.
    mutating func previous() throws(PlayerError) {
        guard playing, let current else { throw .notPlaying }
        let index = current > 0 ? current - 1 : (queue.repeatMode ? queue.count - 1 : current)
        leaveForUserChoice(atOrder: index)
        playOrder(index)
    }

    /// `seek POS TIME`: plays the song at `position` from `time` seconds into its range.
    mutating func seek(position: Int, to time: Double) throws(QueueError) {
        guard position >= 0 && position < queue.count else { throw .badSongIndex }
        if isLiveStream(atPosition: position), time > 0 {
            refuseSeek()
            throw .notSeekable
        }
        seek(validPosition: position, to: time)
    }

    /// Plays the song at `position`, which is in the queue, from `time` seconds into its range.
    private mutating func seek(validPosition position: Int, to time: Double) {
        let index = queue.random ? queue.orderIndex(ofPosition: position) : position
        error = nil
        stopOnError = true
        errorCount = 0
        let entry = queue.entry(atOrder: index)
        let paused = playing && pipeline.status.state == .pause
        leaveForUserChoice(atOrder: index)
        // A time past the end ends the song at once, and playback goes on with the next.
        playOrder(index, paused: paused, offset: entry.range.start + time)
    }

    /// `seekid ID TIME`.
    mutating func seek(id: Int, to time: Double) throws(QueueError) {
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        try seek(position: position, to: time)
    }

    /// `seekcur [+-]TIME`.
    mutating func seekCurrent(_ time: Double, relative: Bool) throws(PlayerError) {
        guard playing, let position = currentPosition else { throw .notPlaying }
        var target = time
        if relative {
            let status = pipeline.status
            guard status.state != .stop, status.track != nil, let current else { throw .notPlaying }
            target += elapsed(ofEntryAtOrder: current, in: status).rounded(.towardZero)
        }
        if isLiveStream(atPosition: position), target > 0 {
            refuseSeek()
            throw .notSeekable
        }
        seek(validPosition: position, to: max(0, target))
    }

    // MARK: Pipeline events

    /// What the pipeline reported, applied as MPD's `SyncWithPlayer` would.
    mutating func handle(_ event: PipelineEvent, generation eventGeneration: UInt64) {
        guard eventGeneration == generation, playing else { return }
        switch event {
        case .started(let track):
            guard let queued, queue.id(atOrder: queued) == track.token, let old = current else {
                // The pipeline went on to a song that is no longer next: play the right one.
                playNext()
                return
            }
            current = queued
            self.queued = nil
            beginListening(atOrder: queued)
            if queue.consume != .off {
                deleteOrder(old)
                if queue.consume == .oneshot {
                    queue.consume = .off
                    events.insert(.options)
                }
            }
            events.insert(.player)
            songStarted()
            updateQueuedSong(previous: nil)
        case .streamDescribed(let token, let description):
            streamDescribed(token: token, description)
        case .borderPause:
            events.insert(.player)
            if queue.single == .oneshot {
                queue.single = .off
                pipeline.setBorderPause(false)
                events.insert(.options)
            }
        case .finished:
            errorCount = 0
            endListening(leftByUser: false)
            playNext()
        case .outputsFailed(let message):
            // MPD's player pauses on the song with the output's error, rather than skipping
            // songs that are not at fault.
            error = message
            outputsFailed = true
            events.insert(.player)
        case .failed(let message):
            error = message
            errorCount += 1
            events.insert(.player)
            if stopOnError || errorCount >= queue.count {
                stop()
            } else {
                playNext()
            }
        }
    }
}
