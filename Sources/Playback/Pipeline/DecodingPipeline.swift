import Foundation
package import Settings

/// The audio pipeline (docs/internals.md): a decoder thread fills a ``PCMBuffer`` and one output
/// thread per audio output plays it, gaplessly from one song into the next.
///
/// It is made of parts that each own their state:
/// - ``PipelineTransport``: the buffer and the hand-off between the threads, with the
///   ``DecoderScheduler`` and ``OutputSlots`` state machines, under one small lock whose
///   condition the threads wait on;
/// - ``DecoderThread`` (with its crossfade planning) and one ``OutputThread`` per output, each
///   with the state only it touches (the open song, the device's ``DeviceLifecycle``);
/// - ``NowPlaying``, what `status` shows, and ``PipelineSettings``, each behind a mutex of its
///   own, so that `status` and `crossfade` never take the transport's lock (`setvol` takes it
///   only to read which outputs' hardware mixers are this partition's);
/// - ``PipelineEventDispatcher``, which hands events to the player on a thread of its own.
///
/// The first working output is the *reference*: what it has played is `elapsed`, and when it
/// crosses into the next song the player hears `started`. A new kind of output is a new
/// ``AudioOutputDevice``; the pipeline does not change.
package final class DecodingPipeline: AudioPipeline, @unchecked Sendable {
    // Every stored property is immutable; the mutable state lives in the parts, each behind
    // its own lock, which the compiler cannot see through `PipelineTransport`, hence @unchecked.
    /// The outputs, in configuration order.
    let outputs: [PipelineOutput]
    /// The hand-off between the threads.
    let transport: PipelineTransport
    /// What `status` shows.
    let nowPlaying = Locked(NowPlaying())
    /// What the threads read as they go.
    let settings: Locked<PipelineSettings>
    private let events: PipelineEventDispatcher

    /// Creates the pipeline and starts its threads.
    /// - Parameter attached: whether the outputs start in this pipeline (`true` for the
    ///   default partition's; a new partition starts with none, as in MPD).
    init(
        outputs: [PipelineOutput],
        attached: Bool = true,
        bufferBytes: Int,
        replayGain: ReplayGainSettings = ReplayGainSettings(),
        configuredFormat: String? = nil,
        log: (@Sendable (PipelineLogEntry) -> Void)? = nil,
        openSource: @escaping DecoderThread.SourceOpener
    ) {
        self.outputs = outputs
        transport = PipelineTransport(
            bufferBytes: bufferBytes, enabledAtStart: outputs.map(\.enabledAtStart), attached: attached)
        settings = Locked(PipelineSettings(replayGain: replayGain, configuredFormat: configuredFormat))
        events = PipelineEventDispatcher(nowPlaying: nowPlaying, log: log)
        DecoderThread(
            transport: transport, settings: settings, events: events, nowPlaying: nowPlaying,
            outputFormats: outputs.map(\.format), openSource: openSource
        ).start()
        for index in outputs.indices {
            // Readers are registered before any thread runs, so no output misses the first
            // chunks. Only an output this pipeline holds reads from the start; another one's
            // thread waits for `attachOutput`, and the decoder never waits for it.
            let reader = attached ? transport.withLock { transport.buffer.addReader() } : nil
            if attached && reader == nil { break }
            transport.withLock { transport.outputs.started(index, reader: reader) }
            OutputThread(
                index: index, output: outputs[index], transport: transport, nowPlaying: nowPlaying,
                settings: settings, events: events
            ).start(reader: reader)
        }
        events.start()
    }

    /// Creates a pipeline whose sources need no interrupt (tests' generated sources).
    convenience init(
        outputs: [PipelineOutput],
        attached: Bool = true,
        bufferBytes: Int,
        replayGain: ReplayGainSettings = ReplayGainSettings(),
        configuredFormat: String? = nil,
        log: (@Sendable (PipelineLogEntry) -> Void)? = nil,
        openSource: @escaping (PipelineTrack) throws -> any PCMSource
    ) {
        self.init(
            outputs: outputs, attached: attached, bufferBytes: bufferBytes, replayGain: replayGain,
            configuredFormat: configuredFormat, log: log, openSource: { track, _ in try openSource(track) })
    }

    /// Stops every thread: a deleted partition's pipeline (`delpartition`), and tests.
    package func shutDown() {
        transport.withLock {
            transport.isShutDown = true
            transport.interrupts.advance()
            transport.broadcast()
        }
        events.shutDown()
    }

    // MARK: AudioPipeline

    package func setEventHandler(_ handler: @escaping @Sendable (UInt64, PipelineEvent) -> Void) {
        events.setHandler(handler)
    }

    package func play(_ track: PipelineTrack, from offset: Double, paused: Bool) -> UInt64 {
        transport.withLock {
            transport.generation &+= 1
            transport.interrupts.advance()
            let generation = transport.generation
            transport.buffer.dropAll()
            transport.decoder.play(track, offset: offset)
            transport.paused = paused
            nowPlaying.withLock { $0.play(track, from: offset, paused: paused, generation: generation) }
            if !paused && !transport.outputs.anyEnabled {
                // No output enabled in this pipeline (all disabled, or a partition that holds
                // none): MPD's player pauses on the song with this error when it finds no
                // output to open.
                pauseForOutputs("All audio outputs are disabled")
            }
            transport.broadcast()
            return generation
        }
    }

    package func enqueue(_ track: PipelineTrack?) {
        transport.withLock {
            nowPlaying.withLock { $0.enqueue(track) }
            if transport.decoder.enqueue(track, buffer: transport.buffer) { transport.interrupts.advance() }
            transport.broadcast()
        }
    }

    /// Pauses or resumes. Pausing counts the chunk the reference output is writing as heard at
    /// once (``NowPlaying/setPaused(_:)``) and does not wait for the write.
    package func setPaused(_ paused: Bool) {
        transport.withLock {
            transport.paused = paused
            nowPlaying.withLock { $0.setPaused(paused) }
            if !paused && !transport.outputs.anyEnabled {
                // Resumed after the last output was disabled while paused: as at `play`, MPD
                // stays paused with this error, and plays on at the next resume once an
                // output is enabled again.
                pauseForOutputs("All audio outputs are disabled")
            }
            transport.broadcast()
        }
    }

    package func setBorderPause(_ enabled: Bool) {
        transport.withLock { transport.borderPause = enabled }
    }

    package func stop() {
        transport.withLock {
            transport.generation &+= 1
            transport.interrupts.advance()
            let generation = transport.generation
            transport.buffer.dropAll()
            transport.decoder.stop()
            transport.paused = false
            nowPlaying.withLock { $0.stop(generation: generation) }
            transport.broadcast()
        }
    }

    package var status: PipelineStatus { nowPlaying.withLock { $0.status } }

    package var playedSeconds: Double { nowPlaying.withLock { $0.played } }

    /// Sets the software volume (0…100) applied by outputs with a software mixer.
    package func setVolume(_ level: Int) {
        settings.withLock { $0.volume = level }
        let held = transport.withLock { (0..<outputs.count).map { transport.outputs[$0].attached } }
        // Hardware mixers outside every lock: the card may take a moment. Only this
        // partition's: the others' belong to their own volume.
        for (output, isHeld) in zip(outputs, held) where isHeld { try? output.mixer?.setVolume(level) }
    }

    /// The first held output's hardware volume, read from the device.
    package func hardwareVolume() -> Int? {
        let held = transport.withLock { (0..<outputs.count).map { transport.outputs[$0].attached } }
        for (output, isHeld) in zip(outputs, held) where isHeld {
            if let mixer = output.mixer, let volume = try? mixer.volume() { return volume }
        }
        return nil
    }

    /// Sets the level the software mixers scale by; the hardware mixers keep theirs.
    package func setSoftwareVolume(_ level: Int) {
        settings.withLock { $0.volume = level }
    }

    /// Hears every hardware mixer's changes and passes on those of the outputs this pipeline
    /// holds now (an output moved to another partition reports to that one).
    package func setMixerHandler(_ handler: @escaping @Sendable (Int) -> Void) {
        for (index, output) in outputs.enumerated() {
            output.mixer?.onChange { [weak self] volume in
                guard let self, self.transport.withLock({ self.transport.outputs[index].attached }) else { return }
                handler(volume)
            }
        }
    }

    /// Sets the replay gain mode in effect. The gain is applied as songs are decoded, so what
    /// is already buffered plays on at the gain it was decoded with.
    package func setReplayGainMode(_ mode: ReplayGainMode) {
        settings.withLock { $0.replayGain.mode = mode }
    }

    /// Sets `crossfade`, `mixrampdb` and `mixrampdelay`; they apply from the next song change
    /// the decoder reaches (a fade under way runs to its end).
    package func setCrossfade(_ settings: CrossfadeSettings) {
        self.settings.withLock { $0.crossfade = settings }
    }

    /// Pauses on the song because no output can play it. Called with the transport's lock held.
    func pauseForOutputs(_ message: String) {
        transport.pauseForOutputs(
            message, generation: transport.generation, nowPlaying: nowPlaying, events: events)
    }
}
