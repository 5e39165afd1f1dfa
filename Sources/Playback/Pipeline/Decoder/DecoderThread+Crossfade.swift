import Foundation

/// Crossfade and MixRamp, on the decoder's side: the buffer holds the mix, so output threads
/// play chunks as they always do.
///
/// MPD's player pairs the last chunks of the current song with the first ones of the next and
/// its outputs mix each pair. Here the decoder does it as it decodes: near the end of a song it
/// opens the next one (when it is known, the pipeline is not to pause at the border, and the
/// rules of ``CrossfadeSettings`` allow it), and for the last chunks of the fade it reads a
/// chunk of each song, applies each song's own replay gain, and writes the mix
/// (``CrossfadeMix``). A mixed chunk belongs to the outgoing song: `elapsed` runs on in it and
/// the player hears `started` when the reference output reaches the first chunk of the next
/// song alone, where `elapsed` is already the fade's length into it, as in MPD.
///
/// If the next song changes while the mix is still in the buffer, the chunks no output has
/// reached are taken back and the decoder goes back to the outgoing song where they began.
extension DecoderThread {
    /// What the decoder needs to know to decide on a fade: the scheduler's word on the next
    /// song, and the settings read for this chunk.
    struct FadeContext {
        var settings: CrossfadeSettings
        /// The song that follows, when it is known and no border pause is due.
        var upcoming: PipelineTrack?
        /// Whether the player has not said yet what follows (and no border pause is due).
        var awaitingNext: Bool
        /// `audio_output_format`, if set.
        var configuredFormat: String?
    }

    /// The chunk the decoder fills in this step.
    struct Chunk {
        var space: UnsafeMutableRawBufferPointer
        var index: Int
        var generation: UInt64
        var format: PCMFormat
    }

    /// The next song, opened to fade in.
    struct IncomingSong {
        let source: any PCMSource
        let track: PipelineTrack
        /// Its own replay gain stage (MPD's "other" replay gain filter).
        var gain = SoftwareVolume()
    }

    /// The decoder thread's crossfade: nothing, a song opened ahead (or refused), or a fade under
    /// way. Owned by the decoder thread.
    struct CrossfadeState {
        enum Phase {
            case idle
            /// The next song cannot crossfade (too short, another format, no overlap).
            case refused(token: Int, settings: CrossfadeSettings)
            /// Opened, with the overlap worked out; the fade starts when that many chunks are left.
            case planned(IncomingSong, chunks: Int, settings: CrossfadeSettings)
            /// `remaining` chunks of `total` to mix; `additive` for MixRamp.
            case fading(IncomingSong, total: Int, remaining: Int, additive: Bool)
        }

        var phase = Phase.idle
        /// The mix's dither, running on from fade to fade as MPD's does.
        var dither = PCMDither()
        /// The incoming song's samples for one chunk: allocated once.
        let scratch: UnsafeMutableRawBufferPointer

        init(chunkSize: Int) {
            scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        }

        var isFading: Bool {
            if case .fading = phase { return true }
            return false
        }

        /// Forgets the next song and any fade (not the dither).
        mutating func reset() { phase = .idle }
    }

    /// What the decoder does with the chunk in hand.
    enum FadeDecision {
        /// Decodes it as usual.
        case plain
        /// Mixes it (``decodeFading(_:_:current:playing:gain:gainStage:)``).
        case mix
        /// Decodes nothing until the player says which song follows.
        case waitForNext
    }

    /// Plans the fade into the upcoming song and starts it when the current song is that close
    /// to its end.
    func startFade(
        _ chunk: Chunk, current: any PCMSource, playing: PipelineTrack,
        gain: ReplayGainSettings, context: FadeContext
    ) -> FadeDecision {
        guard context.settings.isEnabled, let end = playing.end ?? current.duration else {
            fade.reset()
            return .plain
        }
        let format = chunk.format
        let chunkFrames = chunk.space.count / format.frameSize
        let remainingFrames = max(0, Int(((end - current.position) * Double(format.sampleRate)).rounded()))
        let remaining = max(1, (remainingFrames + chunkFrames - 1) / chunkFrames)
        // MPD keeps `buffer_before_play` (a second) out of the overlap.
        let buffer = transport.buffer
        let maximumChunks = buffer.capacity - format.bytesPerSecond / buffer.chunkSize
        guard let upcoming = context.upcoming else {
            fade.reset()
            // Within the fade's length of the end, the next song must be known before going on:
            // MPD's player decides when the chunks are played, the decoder here when it makes them.
            let fadeChunks = context.settings.overlapChunks(
                chunkSeconds: Double(chunkFrames) / Double(format.sampleRate), mixRampStart: nil,
                mixRampPreviousEnd: nil, maximumChunks: maximumChunks)
            return context.awaitingNext && remaining <= fadeChunks ? .waitForNext : .plain
        }
        guard remaining <= maximumChunks else { return .plain }

        switch fade.phase {
        case .refused(let token, let settings) where token == upcoming.token && settings == context.settings:
            return .plain
        case .planned(let incoming, _, let settings)
        where incoming.track.token == upcoming.token && settings == context.settings:
            break
        default:
            fade.phase = plan(
                upcoming, current: current, playing: playing, format: format, gain: gain,
                context: context, chunkFrames: chunkFrames, maximumChunks: maximumChunks)
        }
        guard case .planned(let incoming, let chunks, let settings) = fade.phase, remaining <= chunks else {
            return .plain
        }

        let started = transport.withLock {
            chunk.generation == transport.generation && buffer.written == chunk.index && !transport.borderPause
                && transport.decoder.beginFade(
                    at: chunk.index, outgoing: playing, time: current.position, incoming: upcoming.token)
        }
        guard started else { return .plain }
        fade.phase = .fading(incoming, total: remaining, remaining: remaining, additive: settings.isMixRampEnabled)
        return .mix
    }

    /// Opens the upcoming song and applies MPD's rules to it. `format` is what the decoder
    /// writes (the stream's format), which both songs are read in.
    private func plan(
        _ upcoming: PipelineTrack, current: any PCMSource, playing: PipelineTrack, format: PCMFormat,
        gain: ReplayGainSettings, context: FadeContext, chunkFrames: Int, maximumChunks: Int
    ) -> CrossfadeState.Phase {
        let settings = context.settings
        let refused = CrossfadeState.Phase.refused(token: upcoming.token, settings: settings)
        // MPD fades only between songs of known lengths: a live stream on either side is refused
        // before connecting to the next one, which would be done again at the border.
        if (upcoming.isStream && upcoming.duration == nil) || (playing.end ?? current.duration) == nil {
            return refused
        }
        let opened: any PCMSource
        do {
            opened = try openSource(upcoming, streamInterrupt())
            if upcoming.start > 0 { try opened.seek(to: upcoming.start) }
        } catch {
            return refused  // it fails again, and is reported, when the decoder gets there
        }
        func length(_ track: PipelineTrack, _ source: any PCMSource) -> Double? {
            (track.end ?? source.duration).map { $0 - track.start }
        }
        // MPD compares the formats its decoder delivers: each song's own, or
        // `audio_output_format`'s fields where it sets them.
        func decoded(_ source: any PCMSource) -> PCMFormat {
            context.configuredFormat.flatMap { PCMFormat(mpdFormat: $0, source: source.sourceFormat) }
                ?? source.sourceFormat
        }
        guard
            settings.canCrossfade(
                current: length(playing, current), next: length(upcoming, opened),
                sameFormat: decoded(opened) == decoded(current))
        else { return refused }
        func decibels(_ info: ReplayGainInfo?) -> Float {
            20 * log10f(Float(gain.factor(for: info)) / Float(SoftwareVolume.unity))
        }
        // The next song's start ramp and this one's end ramp. (MPD 0.23 sometimes misses them:
        // its FLAC decoder reports the stream ready before it has read the tags, and the player
        // may decide in between; then it falls back to the fade's length. Tonearm reads the
        // tags when it opens the song, so it always has them.)
        let chunks = settings.overlapChunks(
            chunkSeconds: Double(chunkFrames) / Double(format.sampleRate),
            gainDB: decibels(opened.replayGain), previousGainDB: decibels(current.replayGain),
            mixRampStart: opened.mixRamp.start, mixRampPreviousEnd: current.mixRamp.end, maximumChunks: maximumChunks)
        guard chunks > 0 else { return refused }
        return .planned(IncomingSong(source: opened, track: upcoming), chunks: chunks, settings: settings)
    }

    /// Decodes one chunk of each song and commits the mix.
    /// - Returns: the incoming song when the fade is over and it goes on alone.
    func decodeFading(
        _ chunk: Chunk, current: any PCMSource, playing: PipelineTrack,
        gain: ReplayGainSettings, gainStage: inout SoftwareVolume
    ) -> IncomingSong? {
        guard case .fading(var incoming, let total, let remaining, let additive) = fade.phase else { return nil }
        let format = chunk.format
        let full = chunk.space.count - chunk.space.count % format.frameSize
        var capacity = full
        if let end = playing.end {
            let left = max(0, Int(((end - current.position) * Double(format.sampleRate)).rounded())) * format.frameSize
            capacity = min(capacity, left)
        }
        let time = current.position
        let outgoing = read(
            current, into: UnsafeMutableRawBufferPointer(rebasing: chunk.space[0..<capacity]), format: format,
            stage: &gainStage, factor: gain.factor(for: current.replayGain), track: playing,
            generation: chunk.generation)
        if outgoing == 0 {
            fade.reset()
            return incoming
        }
        let received = read(
            incoming.source, into: UnsafeMutableRawBufferPointer(rebasing: fade.scratch[0..<full]),
            format: format, stage: &incoming.gain, factor: gain.factor(for: incoming.source.replayGain),
            track: incoming.track, generation: chunk.generation)
        var length = outgoing
        if received > 0 {
            CrossfadeMix.mix(
                UnsafeRawBufferPointer(rebasing: fade.scratch[0..<received]),
                into: UnsafeMutableRawBufferPointer(rebasing: chunk.space[0..<min(outgoing, received)]),
                sample: format.sample,
                portion: additive ? nil : CrossfadeMix.portion(remaining: remaining, total: total),
                dither: &fade.dither)
            if received > outgoing {
                // The outgoing song's last, short chunk: the rest is the incoming song alone,
                // and the chunk has its length (MPD's outputs do the same).
                UnsafeMutableRawBufferPointer(rebasing: chunk.space[outgoing..<received])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: fade.scratch[outgoing..<received]))
            }
            length = received
        }

        transport.withLock {
            guard
                chunk.generation == transport.generation && transport.buffer.written == chunk.index
                    && transport.decoder.isFading(from: playing.token)
            else { return }
            transport.buffer.commit(
                ChunkInfo(
                    token: playing.token, time: time, length: length, format: format, bitrate: current.bitrate,
                    isEnd: false))
            transport.announceChunk()
            // The incoming song broke off: no fade; the decoder tries it again at the end.
            if received == 0 { transport.decoder.fadeBrokeOff(incoming.track) }
        }
        if received == 0 {
            fade.reset()
            return nil
        }
        if remaining <= 1 {
            fade.reset()
            return incoming
        }
        fade.phase = .fading(incoming, total: total, remaining: remaining - 1, additive: additive)
        return nil
    }

    /// Reads whole frames from `source` and applies its replay gain; 0 at its end or on an
    /// error (logged).
    private func read(
        _ source: any PCMSource, into space: UnsafeMutableRawBufferPointer, format: PCMFormat,
        stage: inout SoftwareVolume, factor: Int, track: PipelineTrack, generation: UInt64
    ) -> Int {
        guard space.count > 0 else { return 0 }
        do {
            let length = try source.read(into: space, format: format)
            stage.apply(
                factor: factor, to: UnsafeMutableRawBufferPointer(rebasing: space[0..<length]), sample: format.sample)
            return length
        } catch {
            logFailure(error, generation: generation)
            return 0
        }
    }
}
