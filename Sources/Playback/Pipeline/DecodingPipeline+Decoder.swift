import Foundation

/// The decoder thread: opens songs, decodes them into the buffer, and goes on into the next
/// song without a gap.
///
/// Replay gain is applied here, right after each `read`, with the factor of the song the
/// samples belong to, so each song keeps its own gain across a gapless border. The factor is
/// worked out per chunk from the settings of the moment (a few float operations, nothing
/// allocated); the samples are scaled by one ``SoftwareVolume`` stage whose dither runs on
/// from chunk to chunk and song to song, as it does in MPD's replay gain filter.
extension DecodingPipeline {
    /// What the decoder does next, decided under the lock.
    private enum Step {
        /// `freshGain`: restart the replay gain dither (the first play after a stop).
        case open(PipelineTrack, offset: Double, generation: UInt64, freshGain: Bool)
        /// Back to the outgoing song of an undone crossfade, at `offset`.
        case resume(PipelineTrack, offset: Double, generation: UInt64)
        /// `gain`: the replay gain settings in effect for this chunk; `fade`: the crossfade
        /// settings and the song that may fade in, when one is known.
        case decode(
            into: UnsafeMutableRawBufferPointer, index: Int, generation: UInt64, gain: ReplayGainSettings,
            fade: FadeContext)
        case openNext(PipelineTrack, generation: UInt64)
        case end(generation: UInt64)
        case close
        case quit
    }

    func decoderLoop() {
        // Behind the outputs and the commands they start (see ``AudioThreadScheduling``).
        AudioThreadScheduling.makeCurrentThreadNicer()
        var source: (any PCMSource)?
        var track: PipelineTrack?
        var sessionFormat: PCMFormat?
        var gainStage = SoftwareVolume()
        var fade = CrossfadeState(chunkSize: buffer.chunkSize)
        while true {
            lock.lock()
            let step = nextDecoderStep(hasSource: source != nil)
            lock.unlock()

            switch step {
            case .quit:
                return
            case .close:
                source = nil
                track = nil
                fade.reset()
            case .open(let wanted, let offset, let generation, let freshGain):
                source = nil
                fade.reset()
                if freshGain {
                    gainStage.reset()
                    fade.dither = PCMDither()
                }
                do {
                    let opened = try openSource(wanted)
                    if offset > 0 { try opened.seek(to: offset) }
                    source = opened
                    track = wanted
                    sessionFormat = nil
                } catch {
                    post(.log("\(error)"), generation: generation)
                    post(.failed(Self.message(error, track: wanted)), generation: generation)
                }
            case .resume(let wanted, let offset, let generation):
                fade.reset()
                do {
                    let opened = try openSource(wanted)
                    try opened.seek(to: offset)
                    source = opened
                    track = wanted
                } catch {
                    // The outgoing song cannot be taken up again: go on as at its end.
                    post(.log("\(error)"), generation: generation)
                    source = nil
                    lock.lock()
                    if generation == self.generation { decoderWaitingForNext = true }
                    lock.unlock()
                }
            case .openNext(let wanted, let generation):
                fade.reset()  // a song opened ahead for a fade that did not happen
                do {
                    let opened = try openSource(wanted)
                    if wanted.start > 0 { try opened.seek(to: wanted.start) }
                    lock.lock()
                    if generation == self.generation {
                        border = (buffer.written, wanted.token)
                        fadeStart = nil
                        next = nil
                        nextKnown = false
                        decoderWaitingForNext = false
                    }
                    lock.unlock()
                    source = opened
                    track = wanted
                } catch {
                    post(.log("\(error)"), generation: generation)
                    // The song after this one cannot play: end the stream here; the player
                    // then tries it, sees the error and goes on. The decoder keeps waiting for
                    // the next song, so that with none known it takes the `.end` step: the
                    // outputs then play out what they hold and report `finished` (clearing
                    // the wait here left the decoder idle and the player stuck in `play`).
                    lock.lock()
                    if generation == self.generation {
                        next = nil
                        nextKnown = true
                    }
                    lock.unlock()
                }
            case .end(let generation):
                source = nil
                track = nil
                lock.lock()
                if generation == self.generation {
                    buffer.commit(
                        ChunkInfo(token: 0, time: 0, length: 0, format: format ?? .cd, bitrate: 0, isEnd: true))
                    lock.broadcast()
                }
                lock.unlock()
            case .decode(let space, let index, let generation, let gain, let context):
                guard let current = source, let playing = track else { continue }
                let format = sessionFormat ?? outputFormat(for: current.sourceFormat)
                sessionFormat = format
                let chunk = Chunk(space: space, index: index, generation: generation, format: format)
                let decision =
                    fade.isFading
                    ? .mix : startFade(&fade, chunk, current: current, playing: playing, gain: gain, context: context)
                if decision == .waitForNext {
                    lock.lock()
                    if generation == self.generation { fadeAwaitsNext = true }
                    lock.unlock()
                    continue
                }
                if decision == .mix {
                    if let incoming = decodeFading(
                        &fade, chunk, current: current, playing: playing, gain: gain,
                        gainStage: &gainStage)
                    {
                        // The fade is over (or the outgoing song ended sooner): the incoming
                        // song goes on alone.
                        source = incoming.source
                        track = incoming.track
                        gainStage = incoming.gain
                    }
                    continue
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
                        post(.log("\(error)"), generation: generation)
                    }
                }
                lock.lock()
                self.format = format
                if generation == self.generation && buffer.written == index {
                    if length > 0 {
                        buffer.commit(
                            ChunkInfo(
                                token: playing.token, time: time, length: length,
                                format: format, bitrate: current.bitrate, isEnd: false))
                        lock.broadcast()
                    } else {
                        // The song is over (or broke off): what comes next is decided above.
                        decoderWaitingForNext = true
                        if let failed { post(.failed(failed), generation: generation) }
                    }
                }
                lock.unlock()
                if length == 0 { source = nil }
            }
        }
    }

    /// Decides the decoder's next step; called with the lock held, waits on it.
    private func nextDecoderStep(hasSource: Bool) -> Step {
        while true {
            if shutdown { return .quit }
            if let wanted = request {
                request = nil
                stopDecoder = false
                decoderWaitingForNext = false
                let freshGain = replayGainReset
                replayGainReset = false
                return .open(wanted, offset: requestOffset, generation: generation, freshGain: freshGain)
            }
            if let resume = resumeOutgoing {
                resumeOutgoing = nil
                stopDecoder = false
                decoderWaitingForNext = false
                return .resume(resume.track, offset: resume.offset, generation: generation)
            }
            if stopDecoder {
                stopDecoder = false
                if hasSource { return .close }
            }
            if decoderWaitingForNext && border == nil {
                if let upcoming = next { return .openNext(upcoming, generation: generation) }
                if nextKnown && buffer.hasRoom {
                    decoderWaitingForNext = false
                    return .end(generation: generation)
                }
            }
            if fadeAwaitsNext && (nextKnown || borderPause || !crossfade.isEnabled) { fadeAwaitsNext = false }
            if hasSource && !decoderWaitingForNext && !fadeAwaitsNext && buffer.hasRoom
                && (!decoderHeld || buffer.freeChunks >= refillChunks)
            {
                decoderHeld = false
                let fade = FadeContext(
                    settings: crossfade, upcoming: borderPause || !nextKnown ? nil : next,
                    awaitingNext: !nextKnown && !borderPause, configuredFormat: configuredFormat)
                return .decode(
                    into: buffer.space(), index: buffer.written, generation: generation, gain: replayGain,
                    fade: fade)
            }
            if hasSource && !decoderWaitingForNext && !buffer.hasRoom {
                // Full: decode again in one batch once `refillChunks` are free, rather than
                // one chunk each time an output plays one (a wake-up per chunk, 43 a second).
                decoderHeld = true
            }
            // Whether only room in the buffer lets the decoder go on: the outputs wake it then.
            decoderNeedsRoom =
                (hasSource && !decoderWaitingForNext && !fadeAwaitsNext)
                || (decoderWaitingForNext && border == nil && next == nil && nextKnown)
            lock.wait()
            decoderNeedsRoom = false
        }
    }

    /// The format of the stream: the first output's forced `format` (`*` fields taken from
    /// the song), else the first song's own.
    func outputFormat(for source: PCMFormat) -> PCMFormat {
        outputs.lazy.compactMap { $0.format.flatMap { PCMFormat(mpdFormat: $0, source: source) } }.first ?? source
    }

    /// What `status` shows as `error:` when `track` cannot be decoded: MPD's wording, which
    /// names the song by its URI and leaves FFmpeg's reason to the log (see
    /// ``DecoderError/message(uri:)``).
    static func message(_ error: any Error, track: PipelineTrack) -> String {
        if let error = error as? DecoderError { return error.message(uri: track.uri ?? track.path) }
        let text = "\(error)"
        return text.isEmpty ? "Failed to decode \(track.uri ?? track.path)" : text
    }

    func post(_ kind: PipelineMailbox.Kind, generation: UInt64) {
        mailbox.post(kind, generation: generation)
    }
}
