import Foundation
import MediaLibrary
import Platform
public import Settings
import Synchronization

/// The audio pipeline (docs/internals.md): a decoder thread fills a ``PCMBuffer`` and one output
/// thread per audio output plays it, gaplessly from one song into the next.
///
/// All shared state sits under one lock (`lock`, an `NSCondition`); the threads wait on its
/// condition for whatever they need next (a chunk, room, a command, the end of a pause). The
/// first working output is the *reference*: what it has played is `elapsed`, and when it
/// crosses into the next song the player hears `started`. Device and decoder calls happen
/// outside the lock.
public final class DecodingPipeline: AudioPipeline, @unchecked Sendable {
    // Every stored property is either immutable or guarded by `lock`; the threads started in
    // `init` only touch them under it (device and decoder calls happen outside, on values
    // each thread owns), which the compiler cannot see, hence @unchecked.
    /// Opens a song for the decoder thread.
    typealias SourceOpener = (PipelineTrack) throws -> any PCMSource

    /// One audio output as the pipeline drives it: the device its thread calls directly, and
    /// what the configuration says around it.
    struct Output {
        /// The configured `name`.
        let name: String
        /// The `type`, which `outputs` prints as `plugin:`.
        var plugin = "test"
        /// The device the output thread opens, writes and closes.
        let device: any AudioOutputDevice
        /// The output's forced format (`format`, MPD's notation with `*` fields), if any.
        let format: String?
        /// Whether samples are scaled by the software volume before the device.
        let softwareVolume: Bool
        /// The device's own mixer, for `mixer_type "hardware"`.
        var mixer: (any HardwareMixer)?
        /// Whether the output plays from the start (`enabled`).
        var enabledAtStart = true
    }

    let lock = NSCondition()
    let buffer: PCMBuffer
    let mailbox = PipelineMailbox()
    let openSource: SourceOpener
    let outputs: [Output]
    /// Where failures are logged with their full reason (the server's logger); called on the
    /// event thread, never on an audio thread.
    let log: (@Sendable (String) -> Void)?

    // Guarded by `lock`.
    var generation: UInt64 = 0
    var shutdown = false
    var request: PipelineTrack?
    var requestOffset = 0.0
    var stopDecoder = false
    var next: PipelineTrack?
    var nextKnown = false
    /// Where the decoder crossed into the next song, until the reference output gets there.
    var border: (index: Int, token: Int)?
    var decoderWaitingForNext = false
    var decoderIdle = true
    /// The buffer was full: the decoder waits for ``refillChunks`` free chunks before it
    /// decodes again, so that it works in batches.
    var decoderHeld = false
    /// The decoder waits for nothing but room in the buffer: an output that frees enough of it
    /// wakes it (other outputs' progress wakes nobody).
    var decoderNeedsRoom = false
    /// How many free chunks let a held decoder go on: an eighth of the buffer (6 s of CD audio
    /// with the default 8 MiB), so a full buffer stays nearly full and the decoder wakes a few
    /// times a minute instead of 43 times a second.
    let refillChunks: Int
    var format: PCMFormat?
    var paused = false
    /// Set with `paused` when no output could play (``pauseForOutputs(_:generation:)``).
    var outputsFailure: String?
    var borderPause = false
    var volume = 100
    /// The replay gain options and the mode in effect; the decoder thread reads them for
    /// every chunk it decodes.
    var replayGain: ReplayGainSettings
    /// Whether the decoder's next `play` starts with fresh replay gain dither: true after
    /// `stop`, when MPD closes its outputs and with them the replay gain filter; a seek or a
    /// `play` while playing keeps MPD's outputs open, so the dither runs on.
    var replayGainReset = true
    /// `crossfade`, `mixrampdb`, `mixrampdelay`: the decoder reads them as it nears a song's end.
    var crossfade = CrossfadeSettings()
    /// `audio_output_format`, the format MPD's decoder converts every song to: crossfade
    /// needs both songs in the same one of those (an output's own `format` does not count).
    var configuredFormat: String?
    /// Where the decoder began mixing the next song into the current one (the chunk, the song
    /// and its position there) until another song change: a change of the next song can still
    /// undo the fade.
    var fadeStart: (index: Int, outgoing: PipelineTrack, time: Double)?
    /// The decoder is within a fade's length of the song's end and waits to hear which song
    /// follows (the player says so right after `play`, and once the outputs reach a song
    /// change), so that it does not decode past where the fade must begin.
    var fadeAwaitsNext = false
    /// An undone fade: the decoder goes back to the outgoing song, at this offset.
    var resumeOutgoing: (track: PipelineTrack, offset: Double)?
    var reference: Int?
    /// The chunk the reference output is writing, which counts as heard when the write
    /// returns, or at once when a pause comes first (``setPaused(_:)``).
    var referenceChunk: ReferenceChunk?
    var failedOutputs = Set<Int>()
    /// Whether each output is enabled (`enableoutput`/`disableoutput`).
    var enabled: [Bool]
    /// Whether each output belongs to this pipeline's partition. The devices are shared by
    /// every partition's pipeline; an output plays in the one pipeline that holds it, and is a
    /// stand-in (MPD's "dummy") in the others (`moveoutput`).
    var attached: [Bool]
    /// Whether each output's thread holds a buffer reader (and so may hold the device open);
    /// ``detachOutput(_:)`` waits for it to let go before another pipeline may open the device.
    var holding: [Bool]
    /// A reader registered by ``attachOutput(_:enabled:)`` for the output's thread to take,
    /// so that an output attached before a `play` misses none of its chunks.
    var handedReaders: [Int?]
    /// The last failure of each output, shown by `outputs`.
    var outputErrors: [Int: String] = [:]
    /// The generation in which each failed output failed; the next one retries it.
    var failureGenerations: [Int: UInt64] = [:]
    var playingToken: Int?
    var playedTime = 0.0
    var bitrate = 0
    var played = 0.0
    var tracks: [Int: PipelineTrack] = [:]
    var handler: (@Sendable (UInt64, PipelineEvent) -> Void)?

    /// Creates the pipeline and starts its threads.
    /// - Parameter attached: whether the outputs start in this pipeline (`true` for the
    ///   default partition's; a new partition starts with none, as in MPD).
    init(
        outputs: [Output],
        attached: Bool = true,
        bufferBytes: Int,
        replayGain: ReplayGainSettings = ReplayGainSettings(),
        log: (@Sendable (String) -> Void)? = nil,
        openSource: @escaping SourceOpener
    ) {
        self.outputs = outputs
        self.replayGain = replayGain
        self.log = log
        enabled = outputs.map { attached && $0.enabledAtStart }
        self.attached = Array(repeating: attached, count: outputs.count)
        holding = Array(repeating: false, count: outputs.count)
        handedReaders = Array(repeating: nil, count: outputs.count)
        buffer = PCMBuffer(totalBytes: bufferBytes)
        refillChunks = max(1, buffer.capacity / 8)
        self.openSource = openSource
        reference = attached ? outputs.indices.first { outputs[$0].enabledAtStart } : nil
        startThread(name: "tonearm.decoder") { [self] in decoderLoop() }
        // Readers are registered before any thread runs, so no output misses the first chunks.
        for index in outputs.indices {
            // Only an output this pipeline holds reads from the start; another one's thread
            // waits for `attachOutput`, and the decoder never waits for it.
            let reader = attached ? buffer.addReader() : nil
            if attached && reader == nil { break }
            holding[index] = reader != nil
            startThread(name: "tonearm.out.\(index)") { [self] in outputLoop(index, reader: reader) }
        }
        startThread(name: "tonearm.events") { [self] in dispatchLoop() }
    }

    /// Starts a named thread (``NamedThread``) with a stack of 1 MiB.
    private func startThread(name: String, _ body: @escaping @Sendable () -> Void) {
        NamedThread.start(name: name, stackSize: 1 << 20, body)
    }

    /// Stops every thread: a deleted partition's pipeline (`delpartition`), and tests.
    public func shutDown() {
        lock.lock()
        shutdown = true
        lock.broadcast()
        lock.unlock()
        mailbox.post(.shutdown, generation: 0)
    }

    // MARK: AudioPipeline

    public func setEventHandler(_ handler: @escaping @Sendable (UInt64, PipelineEvent) -> Void) {
        lock.lock()
        self.handler = handler
        lock.unlock()
    }

    public func play(_ track: PipelineTrack, from offset: Double, paused: Bool) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        generation &+= 1
        buffer.dropAll()
        request = track
        requestOffset = offset
        next = nil
        nextKnown = false
        border = nil
        fadeStart = nil
        resumeOutgoing = nil
        fadeAwaitsNext = false
        format = nil
        self.paused = paused
        outputsFailure = nil
        playingToken = track.token
        playedTime = offset
        bitrate = 0
        tracks = [track.token: track]
        if !paused { pauseWithoutOutputs() }
        lock.broadcast()
        return generation
    }

    public func enqueue(_ track: PipelineTrack?) {
        lock.lock()
        defer { lock.unlock() }
        if let track { tracks[track.token] = track }
        if let border, border.token != track?.token, fadeStart != nil {
            undoFade(border)
        } else if let border, border.token != track?.token {
            // The decoder already went on into a song that is no longer next: take it back,
            // unless the outputs are already there (then `started` tells the player).
            if buffer.truncate(to: border.index) {
                self.border = nil
                decoderWaitingForNext = true
            }
        }
        next = track
        nextKnown = true
        lock.broadcast()
    }

    /// Pauses or resumes. Pausing counts the chunk the reference output is writing as heard
    /// at once, as MPD's `pause` waits for its outputs to acknowledge: that chunk counts when
    /// its write returns, so without this `elapsed` would still move on after a client saw the
    /// player paused. It does not wait for the write to return, which would hold the caller,
    /// a session on its event loop under the player's lock, for up to a chunk's playing time,
    /// or for as long as a device write hangs (a pipe whose reader stopped reading).
    public func setPaused(_ paused: Bool) {
        lock.lock()
        defer { lock.unlock() }
        self.paused = paused
        if !paused { outputsFailure = nil }
        // Only a chunk of what plays now: one from before a seek or a new song counts for nothing.
        if paused, var chunk = referenceChunk, chunk.generation == generation, chunk.before == nil {
            chunk.before = (playedTime, played, bitrate)
            playedTime = chunk.end
            played += chunk.seconds
            bitrate = chunk.bitrate
            referenceChunk = chunk
        }
        lock.broadcast()
    }

    public func setBorderPause(_ enabled: Bool) {
        lock.lock()
        borderPause = enabled
        lock.unlock()
    }

    public func stop() {
        lock.lock()
        generation &+= 1
        buffer.dropAll()
        request = nil
        stopDecoder = true
        next = nil
        nextKnown = false
        border = nil
        fadeStart = nil
        resumeOutgoing = nil
        fadeAwaitsNext = false
        paused = false
        outputsFailure = nil
        playingToken = nil
        bitrate = 0
        replayGainReset = true
        lock.broadcast()
        lock.unlock()
    }

    public var status: PipelineStatus {
        lock.lock()
        defer { lock.unlock() }
        guard let token = playingToken, let track = tracks[token] else { return PipelineStatus(state: .stop) }
        return PipelineStatus(
            state: paused ? .pause : .play, elapsed: playedTime, bitrate: bitrate, track: track,
            outputsFailure: outputsFailure)
    }

    public var playedSeconds: Double {
        lock.lock()
        defer { lock.unlock() }
        return played
    }

    /// Sets the software volume (0…100) applied by outputs with a software mixer.
    public func setVolume(_ level: Int) {
        lock.lock()
        volume = level
        let held = attached
        lock.unlock()
        // Hardware mixers outside the lock: the card may take a moment. Only this partition's:
        // the others' belong to their own volume.
        for (output, isHeld) in zip(outputs, held) where isHeld { try? output.mixer?.setVolume(level) }
    }

    /// Sets the replay gain mode in effect. The gain is applied as songs are decoded, so what
    /// is already buffered plays on at the gain it was decoded with.
    public func setReplayGainMode(_ mode: ReplayGainMode) {
        lock.lock()
        replayGain.mode = mode
        lock.unlock()
    }

    // MARK: Events

    private func dispatchLoop() {
        while true {
            let (eventGeneration, kind) = mailbox.take()
            if case .shutdown = kind { return }
            if case .log(let line) = kind {
                log?(line)
                continue
            }
            lock.lock()
            let handler = self.handler
            var event: PipelineEvent?
            switch kind {
            case .started(let token): event = tracks[token].map(PipelineEvent.started)
            case .borderPause: event = .borderPause
            case .finished: event = .finished
            case .failed(let message): event = .failed(message)
            case .outputsFailed(let message): event = .outputsFailed(message)
            case .log, .shutdown: event = nil
            }
            if case .started(let token) = kind {
                // Forget tracks that can no longer be reported.
                tracks = tracks.filter { $0.key == token || $0.key == next?.token }
            }
            lock.unlock()
            if let event { handler?(eventGeneration, event) }
        }
    }
}
