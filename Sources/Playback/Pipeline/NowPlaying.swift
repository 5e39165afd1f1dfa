import MusicModel

/// What `status` shows of the pipeline: the song that is heard, where in it, whether paused,
/// and the seconds played in all (`stats`' `playtime`).
///
/// It has a lock of its own (``DecodingPipeline``'s `nowPlaying` mutex), so that `status`
/// never takes the lock the audio threads wait on. The controls and the reference output
/// change it with the events below; each is a few assignments, unit-tested without threads.
///
/// Every `play` and `stop` starts a new *generation*; an event from an output about a chunk
/// of an older generation (written before a seek, say) changes nothing.
struct NowPlaying {
    /// The chunk the reference output is writing, which counts as heard when the write
    /// returns, or at once when a pause comes first (``setPaused(_:)``).
    struct ReferenceChunk: Equatable {
        /// The output writing it.
        var output: Int
        /// The generation it belongs to; a pause after a seek or a new song does not count it.
        var generation: UInt64
        /// `elapsed` once it is heard.
        var end: Double
        /// Its playing time.
        var seconds: Double
        /// The bit rate it was decoded at.
        var bitrate: Int
        /// `elapsed`, the seconds played and the bit rate before ``setPaused(_:)`` counted it,
        /// if it did.
        var before: Before?
    }

    /// What a pause replaced when it counted a chunk early.
    struct Before: Equatable {
        var elapsed: Double
        var played: Double
        var bitrate: Int
    }

    /// The generation of the last `play` or `stop`.
    private(set) var generation: UInt64 = 0
    /// The song that is heard, `nil` when stopped or when the stream ran out.
    private(set) var playingToken: Int?
    /// The songs the pipeline may report, by token: the current one and the one queued next.
    private var tracks: [Int: PipelineTrack] = [:]
    /// The last song the player queued, kept until a later song starts.
    private var queuedToken: Int?
    /// Whether the pipeline is paused.
    private(set) var paused = false
    /// Why the pipeline paused when no output could play (``pauseForOutputs(_:)``).
    private(set) var outputsFailure: String?
    /// The position in the current song.
    private(set) var elapsed = 0.0
    /// The bit rate of what was heard last.
    private(set) var bitrate = 0
    /// The seconds heard since start.
    private(set) var played = 0.0
    /// See ``ReferenceChunk``.
    private(set) var referenceChunk: ReferenceChunk?
    /// What streams said of themselves, by serial, until the chunk decoded with it is played
    /// (``ChunkInfo/described``).
    private var descriptions: [UInt32: (token: Int, description: StreamDescription)] = [:]
    /// The tags of the last few descriptions, for outputs that take tags: each finds them when
    /// it plays the chunk that carries the serial, which may be after the player took it.
    private var describedTags: [(serial: UInt32, tags: [TagValue])] = []

    /// What `status` shows.
    var status: PipelineStatus {
        guard let token = playingToken, let track = tracks[token] else { return PipelineStatus(state: .stop) }
        return PipelineStatus(
            state: paused ? .pause : .play, elapsed: elapsed, bitrate: bitrate, track: track,
            outputsFailure: outputsFailure)
    }

    /// Whether nothing plays (after `stop`, or the end of the stream).
    var isStopped: Bool { playingToken == nil }

    /// The song with `token`, if it may still be reported.
    func track(_ token: Int) -> PipelineTrack? { tracks[token] }

    // MARK: Events from the controls

    /// `play` of `track` from `offset`, starting `generation`.
    mutating func play(_ track: PipelineTrack, from offset: Double, paused: Bool, generation: UInt64) {
        self.generation = generation
        self.paused = paused
        outputsFailure = nil
        playingToken = track.token
        elapsed = offset
        bitrate = 0
        tracks = [track.token: track]
        queuedToken = nil
        descriptions = [:]
    }

    /// `stop`, starting `generation`.
    mutating func stop(generation: UInt64) {
        self.generation = generation
        descriptions = [:]
        playingToken = nil
        bitrate = 0
        paused = false
        outputsFailure = nil
    }

    /// The decoder read what the stream `token` plays says of itself, and marks the chunk it
    /// commits next with `serial`.
    mutating func recordDescription(_ description: StreamDescription, serial: UInt32, token: Int) {
        descriptions[serial] = (token, description)
        if describedTags.count == 8 { describedTags.removeFirst() }
        describedTags.append((serial, description.tags))
    }

    /// The tags the description `serial` carried, while it is one of the last few.
    func tags(described serial: UInt32) -> [TagValue]? {
        describedTags.last { $0.serial == serial }?.tags
    }

    /// The description the chunk just played carried (and any older one, never played: a
    /// later one replaces it).
    mutating func takeDescription(_ serial: UInt32) -> (token: Int, description: StreamDescription)? {
        let found = descriptions[serial]
        descriptions = descriptions.filter { $0.key > serial }
        return found
    }

    /// The player queued `track` to follow.
    mutating func enqueue(_ track: PipelineTrack?) {
        guard let track else { return }
        tracks[track.token] = track
        queuedToken = track.token
    }

    /// Pauses or resumes. Pausing counts the chunk the reference output is writing as heard
    /// at once, as MPD's `pause` waits for its outputs to acknowledge: without this `elapsed`
    /// would still move on after a client saw the player paused. It does not wait for the
    /// write, which would hold the caller for up to a chunk's playing time, or for as long as
    /// a device write hangs.
    mutating func setPaused(_ paused: Bool) {
        self.paused = paused
        if !paused { outputsFailure = nil }
        // Only a chunk of what plays now: one from before a seek or a new song counts for nothing.
        if paused, var chunk = referenceChunk, chunk.generation == generation, chunk.before == nil {
            chunk.before = Before(elapsed: elapsed, played: played, bitrate: bitrate)
            elapsed = chunk.end
            played += chunk.seconds
            bitrate = chunk.bitrate
            referenceChunk = chunk
        }
    }

    /// The reference output reached the next song in single mode: paused there.
    mutating func pauseAtBorder() { paused = true }

    /// No output can play: paused on the song, with the reason `status` shows as `error:`.
    mutating func pauseForOutputs(_ message: String) {
        paused = true
        outputsFailure = message
    }

    // MARK: Events from the reference output

    /// The reference output reached song `token`, at `time` into it: that is when it is heard.
    mutating func songStarted(_ token: Int, at time: Double) {
        playingToken = token
        elapsed = time
    }

    /// The event dispatcher reported song `token` as started: only it and the song queued
    /// after it can still be reported.
    mutating func forgetTracks(before token: Int) {
        tracks = tracks.filter { $0.key == token || $0.key == queuedToken }
    }

    /// The reference output played out the end of the stream.
    mutating func finished() { playingToken = nil }

    /// Output `output`, the reference, starts writing a chunk of `generation` that plays
    /// `seconds` and ends at `end` in its song.
    mutating func willWrite(output: Int, generation: UInt64, end: Double, seconds: Double, bitrate: Int) {
        referenceChunk = ReferenceChunk(
            output: output, generation: generation, end: end, seconds: seconds, bitrate: bitrate)
    }

    /// Output `output` finished writing a chunk of `generation`; `heard` is what the device
    /// took of it when it counts (it was the reference, and no stop or seek came between):
    /// `elapsed` becomes `time` + `seconds`.
    mutating func didWrite(
        output: Int, generation chunkGeneration: UInt64, heard: (time: Double, seconds: Double, bitrate: Int)?
    ) {
        if let chunk = referenceChunk, chunk.output == output {
            referenceChunk = nil
            if let before = chunk.before {
                // A pause counted the chunk already: take that back (to the bit, so that the
                // sums stay what they were), and it counts below as the write really went. A
                // seek or a stop since has set the time and bit rate anew.
                played = before.played
                if chunkGeneration == generation { (elapsed, bitrate) = (before.elapsed, before.bitrate) }
            }
        }
        guard let heard, chunkGeneration == generation else { return }
        elapsed = heard.time + heard.seconds
        played += heard.seconds
        bitrate = heard.bitrate
    }
}
