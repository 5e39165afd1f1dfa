import Foundation
import Platform

/// The decoder thread: opens songs, decodes them into the buffer, and goes on into the next
/// song without a gap.
///
/// Each turn asks the ``DecoderScheduler`` for the next step under the transport's lock (and
/// waits on its condition when there is none), then opens, seeks or reads outside the lock, and
/// reports the result under it again.
///
/// Replay gain is applied here, right after each `read`, with the factor of the song the
/// samples belong to, so each song keeps its own gain across a gapless border. The factor is
/// worked out per chunk from the settings of the moment (a few float operations, nothing
/// allocated); the samples are scaled by one ``SoftwareVolume`` stage whose dither runs on
/// from chunk to chunk and song to song, as it does in MPD's replay gain filter.
final class DecoderThread: @unchecked Sendable {
    // Only the thread started by `start()` touches the mutable properties; the shared state it
    // reads is behind the transport's lock and the `Locked` settings.
    /// Opens a song.
    typealias SourceOpener = (PipelineTrack, DecoderInterrupt) throws -> any PCMSource

    /// The shared hand-off with the outputs.
    let transport: PipelineTransport
    private let settings: Locked<PipelineSettings>
    /// Where events for the player go.
    let events: PipelineEventDispatcher
    /// What plays, where a stream's descriptions wait for their chunk to be heard.
    private let nowPlaying: Locked<NowPlaying>
    /// Opens a song for decoding.
    let openSource: SourceOpener
    /// Each output's forced `format`, in configuration order: the first one sets the stream's.
    private let outputFormats: [String?]

    private var source: (any PCMSource)?
    private var track: PipelineTrack?
    private var sessionFormat: PCMFormat?
    private var gainStage = SoftwareVolume()
    /// The interrupt count when the current step was taken (``streamInterrupt()``).
    private var stepEpoch: UInt64 = 0
    /// The serial of the last stream description read (``ChunkInfo/described``).
    private var descriptionSerial: UInt32 = 0
    /// The crossfade under way or planned.
    var fade: CrossfadeState

    /// Creates the thread's state.
    init(
        transport: PipelineTransport, settings: Locked<PipelineSettings>, events: PipelineEventDispatcher,
        nowPlaying: Locked<NowPlaying>, outputFormats: [String?], openSource: @escaping SourceOpener
    ) {
        self.transport = transport
        self.nowPlaying = nowPlaying
        self.settings = settings
        self.events = events
        self.outputFormats = outputFormats
        self.openSource = openSource
        fade = CrossfadeState(chunkSize: transport.buffer.chunkSize)
    }

    /// Starts the thread.
    func start() {
        NamedThread.start(name: "tonearm.decoder", stackSize: 1 << 20) { [self] in run() }
    }

    private func run() {
        // Behind the outputs and the commands they start (see ``AudioThreadScheduling``).
        AudioThreadScheduling.makeCurrentThreadNicer()
        while true {
            let (step, generation, space) = transport.withLock { nextStep() }
            switch step {
            case .quit:
                return
            case .wait:
                continue  // not returned by `nextStep()`
            case .close:
                source = nil
                track = nil
                fade.reset()
            case .open(let wanted, let offset, let freshGain):
                open(wanted, offset: offset, freshGain: freshGain, generation: generation)
            case .resume(let wanted, let offset):
                resume(wanted, offset: offset, generation: generation)
            case .openNext(let wanted):
                openNext(wanted, generation: generation)
            case .end:
                source = nil
                track = nil
                transport.withLock {
                    guard generation == transport.generation else { return }
                    transport.buffer.commit(
                        ChunkInfo(
                            token: 0, time: 0, length: 0, format: transport.decoder.lastFormat ?? .cd, bitrate: 0,
                            isEnd: true))
                    transport.broadcast()
                }
            case .decode(let index, let upcoming, let awaitingNext):
                let chunk = Chunk(space: space, index: index, generation: generation, format: .cd)
                decode(chunk, upcoming: upcoming, awaitingNext: awaitingNext)
            }
        }
    }

    /// Asks the scheduler for a step, waiting while there is none; with it, the generation it
    /// belongs to and, for `.decode`, the free chunk to fill. Called with the lock held.
    private func nextStep() -> (DecoderScheduler.Step, UInt64, UnsafeMutableRawBufferPointer) {
        while true {
            let crossfadeEnabled = settings.withLock { $0.crossfade.isEnabled }
            let step = transport.decoder.nextStep(
                hasSource: source != nil, shutdown: transport.isShutDown, borderPause: transport.borderPause,
                crossfadeEnabled: crossfadeEnabled, buffer: transport.buffer)
            // Read with the step, under the lock the controls advance it under: a control after
            // the step raises the interrupts made for it, even one before the open starts.
            stepEpoch = transport.interrupts.current
            if case .decode = step { return (step, transport.generation, transport.buffer.space()) }
            if step != .wait {
                return (step, transport.generation, UnsafeMutableRawBufferPointer(start: nil, count: 0))
            }
            transport.wait()
        }
    }

    private func open(_ wanted: PipelineTrack, offset: Double, freshGain: Bool, generation: UInt64) {
        source = nil
        fade.reset()
        if freshGain {
            gainStage.reset()
            fade.dither = PCMDither()
        }
        announceExpectedFormat(of: wanted, generation: generation)
        do {
            let opened = try openSource(wanted, streamInterrupt())
            if offset > 0 { try opened.seek(to: offset) }
            source = opened
            track = wanted
            sessionFormat = nil
        } catch {
            logFailure(error, generation: generation)
            events.post(.failed(Self.message(error, track: wanted)), generation: generation)
        }
    }

    private func resume(_ wanted: PipelineTrack, offset: Double, generation: UInt64) {
        fade.reset()
        do {
            let opened = try openSource(wanted, streamInterrupt())
            try opened.seek(to: offset)
            source = opened
            track = wanted
        } catch {
            // The outgoing song cannot be taken up again: go on as at its end.
            logFailure(error, generation: generation)
            source = nil
            transport.withLock { if generation == transport.generation { transport.decoder.outgoingLost() } }
        }
    }

    private func openNext(_ wanted: PipelineTrack, generation: UInt64) {
        fade.reset()  // a song opened ahead for a fade that did not happen
        do {
            let opened = try openSource(wanted, streamInterrupt())
            if wanted.start > 0 { try opened.seek(to: wanted.start) }
            let superseded = transport.withLock {
                guard generation == transport.generation else { return false }
                // Another song became next while this one opened: that one is opened next.
                if transport.decoder.nextChanged(whileOpening: wanted.token) { return true }
                transport.decoder.enteredNext(wanted.token, at: transport.buffer.written)
                return false
            }
            guard !superseded else { return }
            source = opened
            track = wanted
        } catch {
            logFailure(error, generation: generation)
            transport.withLock {
                guard generation == transport.generation else { return }
                // A song named next while this one opened (its change interrupted the open)
                // is opened at the next step.
                if transport.decoder.nextChanged(whileOpening: wanted.token) { return }
                // The song after this one cannot play: end the stream here; the player then
                // tries it, sees the error and goes on.
                transport.decoder.nextFailed()
            }
        }
    }

    /// Fills `chunk` (whose format is set here) with the current song, or the mix of a fade.
    private func decode(_ chunk: Chunk, upcoming: PipelineTrack?, awaitingNext: Bool) {
        guard let current = source, let playing = track else { return }
        let settings = settings.value
        let format = sessionFormat ?? outputFormat(for: current.sourceFormat)
        sessionFormat = format
        var chunk = chunk
        chunk.format = format
        let (space, index, generation) = (chunk.space, chunk.index, chunk.generation)
        let context = FadeContext(
            settings: settings.crossfade, upcoming: upcoming, awaitingNext: awaitingNext,
            configuredFormat: settings.configuredFormat)
        let gain = settings.replayGain
        let decision =
            fade.isFading ? .mix : startFade(chunk, current: current, playing: playing, gain: gain, context: context)
        if decision == .waitForNext {
            transport.withLock { if generation == transport.generation { transport.decoder.awaitNextForFade() } }
            return
        }
        if decision == .mix {
            if let incoming = decodeFading(chunk, current: current, playing: playing, gain: gain, gainStage: &gainStage)
            {
                // The fade is over (or the outgoing song ended sooner): the incoming song goes
                // on alone.
                source = incoming.source
                track = incoming.track
                gainStage = incoming.gain
            }
            return
        }
        let time = current.position
        var capacity = space.count - space.count % format.frameSize
        if let end = playing.end {
            let remaining = max(0, Int(((end - time) * Double(format.sampleRate)).rounded())) * format.frameSize
            capacity = min(capacity, remaining)
        }
        var length = 0
        var failed: String?
        if capacity > 0 {
            do {
                length = try current.read(
                    into: UnsafeMutableRawBufferPointer(rebasing: space[0..<capacity]), format: format)
                gainStage.apply(
                    factor: gain.factor(for: current.replayGain),
                    to: UnsafeMutableRawBufferPointer(rebasing: space[0..<length]), sample: format.sample)
            } catch {
                failed = Self.message(error, track: playing)
                logFailure(error, generation: generation)
            }
        }
        var described: UInt32 = 0
        if let tags = current.takeStreamTags() {
            // Heard when this chunk is played, not now: the buffer may hold seconds before it.
            descriptionSerial &+= 1
            if descriptionSerial == 0 { descriptionSerial = 1 }
            described = descriptionSerial
            let description = StreamDescription(
                tags: tags, duration: current.duration, audioFormat: current.sourceFormat.description)
            nowPlaying.withLock { $0.recordDescription(description, serial: described, token: playing.token) }
        }
        transport.withLock {
            transport.decoder.lastFormat = format
            guard generation == transport.generation && transport.buffer.written == index else { return }
            if length > 0 {
                transport.buffer.commit(
                    ChunkInfo(
                        token: playing.token, time: time, length: length, format: format, bitrate: current.bitrate,
                        isEnd: false, described: described))
                transport.announceChunk()
            } else {
                // The song is over (or broke off): what comes next is the scheduler's choice.
                transport.decoder.songEnded()
                if let failed { events.post(.failed(failed), generation: generation) }
            }
        }
        if length == 0 { source = nil }
    }

    /// Tells the outputs the format `wanted` will give, when its database entry says so for
    /// sure, so that a closed one opens while FFmpeg opens the file (for a pipe output, its
    /// command starts meanwhile) rather than after the first chunk is decoded. Seeks announce
    /// too, though the outputs are open then and ignore it: the decoder does not know which
    /// devices are open, and the cost is at most a WAV header read beside FFmpeg's open.
    private func announceExpectedFormat(of wanted: PipelineTrack, generation: UInt64) {
        guard !wanted.isStream, let stored = wanted.audioFormat,
            let expected = PCMFormat(expectedFrom: stored, path: wanted.path)
        else { return }
        let format = outputFormat(for: expected)
        transport.withLock {
            guard generation == transport.generation else { return }
            transport.expectedFormat = (generation, format)
            transport.broadcast()
        }
    }

    /// The format of the stream: the first output's forced `format` (`*` fields taken from
    /// the song), else the first song's own.
    private func outputFormat(for source: PCMFormat) -> PCMFormat {
        outputFormats.lazy.compactMap { $0.flatMap { PCMFormat(mpdFormat: $0, source: source) } }.first ?? source
    }

    /// What `status` shows as `error:` when `track` cannot be decoded: MPD's wording, which
    /// names the song by its URI and leaves FFmpeg's reason to the log (see
    /// ``DecoderError/message(uri:)``).
    static func message(_ error: any Error, track: PipelineTrack) -> String {
        if let error = error as? DecoderError { return error.message(uri: track.uri ?? track.path) }
        let text = "\(error)"
        return text.isEmpty ? "Failed to decode \(track.uri ?? track.path)" : text
    }

    /// An interrupt for what the current step opens: raised by the next `play`, `stop` or
    /// seek after the step was taken.
    func streamInterrupt() -> DecoderInterrupt {
        DecoderInterrupt(transport.interrupts, since: stepEpoch)
    }

    /// Logs why a song failed, unless a control ended its wait (the song is no longer wanted).
    func logFailure(_ error: any Error, generation: UInt64) {
        guard !DecoderError.isInterruption(error) else { return }
        events.post(.log(.error("\(error)")), generation: generation)
    }

    /// Posts an event of `generation` for the player.
    func post(_ kind: PipelineMailbox.Kind, generation: UInt64) {
        events.post(kind, generation: generation)
    }
}
