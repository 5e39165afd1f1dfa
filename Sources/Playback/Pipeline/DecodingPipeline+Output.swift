import Foundation

/// The output threads: each plays every chunk on its device; the reference output also
/// keeps the time and reports song changes.
extension DecodingPipeline {
    /// What an output thread keeps between chunks.
    private struct OutputThreadState {
        var reader: Int?
        var requested: PCMFormat?
        /// The format the open device took; `nil` while it is closed.
        var deviceFormat: PCMFormat?
        var seenGeneration: UInt64 = 0
        var currentToken: Int?
        var devicePaused = false
        var volume = SoftwareVolume()
    }

    func outputLoop(_ index: Int, reader: Int?) {
        // As MPD's output threads: ahead of the decoder and the rest of the machine whenever a
        // chunk or the device is ready (see ``AudioThreadScheduling``).
        AudioThreadScheduling.makeCurrentThreadRealtime()
        let output = outputs[index]
        // Room for a chunk widened from 16-bit samples to 32-bit ones.
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.chunkSize * 2, alignment: 16)
        defer { scratch.deallocate() }
        var thread = OutputThreadState(reader: reader)

        lock.lock()
        while !shutdown {
            guard let reader = thread.reader, enabled[index], attached[index], !failedOutputs.contains(index) else {
                // Disabled or failed: release the device and wait; a failed output tries again
                // with the next `play` (a new generation), as MPD retries it.
                if let reader = thread.reader {
                    buffer.removeReader(reader)
                    thread.reader = nil
                    closeDevice(output, &thread)
                    holding[index] = false
                    // The decoder may have waited for this reader; a detach waits for the device.
                    lock.broadcast()
                }
                // The generation the failure belongs to, recorded when it happened: a `play`
                // that came before this thread got here must still count as the retry.
                let generationAtFailure = failureGenerations[index] ?? generation
                while !shutdown
                    && !(enabled[index] && attached[index]
                        && (!failedOutputs.contains(index) || generation != generationAtFailure))
                {
                    lock.wait()
                }
                if shutdown { break }
                failedOutputs.remove(index)
                thread.reader = handedReaders[index] ?? buffer.addReader()
                handedReaders[index] = nil
                holding[index] = thread.reader != nil
                lock.broadcast()  // a decoder that had no reader to decode for may go on
                thread.seenGeneration = generation
                thread.currentToken = nil
                chooseReference()
                continue
            }
            // Wait for a chunk, a flush, or the end of a pause.
            while !shutdown && enabled[index] && attached[index] && generation == thread.seenGeneration
                && (paused || !buffer.hasChunk(reader: reader))
            {
                if paused && !thread.devicePaused && thread.deviceFormat != nil {
                    lock.unlock()
                    thread.devicePaused = output.device.pause()
                    lock.lock()
                    continue
                }
                lock.wait()
            }
            if shutdown || !enabled[index] || !attached[index] { continue }
            if generation != thread.seenGeneration {
                // Stop, seek or a new song: drop what the device holds; close it on stop.
                thread.seenGeneration = generation
                thread.currentToken = nil
                let stopped = playingToken == nil
                lock.unlock()
                if thread.deviceFormat != nil { output.device.cancel() }
                if stopped { closeDevice(output, &thread) }
                thread.devicePaused = false
                lock.lock()
                continue
            }
            let (bytes, info) = buffer.chunk(reader: reader)
            let chunkGeneration = generation
            let isReference = reference == index
            if info.isEnd {
                lock.unlock()
                if thread.deviceFormat != nil { output.device.drain() }
                lock.lock()
                if chunkGeneration == generation {
                    buffer.release(reader: reader)
                    wakeDecoderIfRoom()
                    if isReference {
                        playingToken = nil
                        post(.finished, generation: chunkGeneration)
                    }
                }
                continue
            }
            // After a flush the output has heard nothing yet; the song it was asked to play is
            // `playingToken`. The first chunk may already be the next song's, when that song
            // gave no audio at all (a seek past its end): the next song is heard then. The same
            // song may also follow itself (`repeat` with `random`, when the new round starts
            // with the song that ended the last one): the token does not change then, so the
            // first chunk after the gapless border counts too (a crossfade's border is its
            // first mixed chunk, still the outgoing song's, so not there).
            let atBorder = border.map { $0.token == info.token && $0.index == buffer.position(reader: reader) } ?? false
            if let previous = thread.currentToken ?? playingToken,
                previous != info.token || (atBorder && fadeStart == nil),
                isReference
            {
                // The reference output reaches the next song: that is when it is heard.
                playingToken = info.token
                playedTime = info.time
                if let border, border.token == info.token { self.border = nil }
                post(.started(token: info.token), generation: chunkGeneration)
                lock.broadcast()
                if borderPause {
                    paused = true
                    post(.borderPause, generation: chunkGeneration)
                    thread.currentToken = info.token
                    continue
                }
            }
            thread.currentToken = info.token
            let level = volume
            if isReference {
                let seconds = Double(bytes.count) / Double(info.format.bytesPerSecond)
                referenceChunk = ReferenceChunk(
                    output: index, generation: chunkGeneration, end: info.time + seconds, seconds: seconds,
                    bitrate: info.bitrate)
            }
            lock.unlock()

            thread.devicePaused = false
            let (done, failure) = play(
                bytes, info, on: output, &thread, level: level, scratch: scratch,
                generation: chunkGeneration)

            lock.lock()
            if let chunk = referenceChunk, chunk.output == index {
                referenceChunk = nil
                if let before = chunk.before {
                    // A pause counted the chunk already: take that back (to the bit, so that
                    // the sums stay what they were), and it counts below as the write really
                    // went. A seek or a stop since has set the time and bit rate anew.
                    played = before.played
                    if chunkGeneration == generation { (playedTime, bitrate) = (before.playedTime, before.bitrate) }
                }
            }
            if let failure {
                outputFailed(index, message: failure, generation: chunkGeneration)
                continue
            }
            if chunkGeneration == generation {
                buffer.release(reader: reader)
                wakeDecoderIfRoom()
                if reference == index, let deviceFormat = thread.deviceFormat {
                    let seconds = Double(done) / Double(deviceFormat.bytesPerSecond)
                    playedTime = info.time + seconds
                    played += seconds
                    bitrate = info.bitrate
                }
            }
        }
        if let reader = thread.reader { buffer.removeReader(reader) }
        lock.unlock()
        closeDevice(output, &thread)
    }

    /// Opens the device for the chunk's format if needed, converts and scales the samples,
    /// and writes them. Runs without the lock.
    /// - Returns: the device bytes written and the failure, if any.
    private func play(
        _ bytes: UnsafeMutableRawBufferPointer, _ info: ChunkInfo, on output: Output, _ thread: inout OutputThreadState,
        level: Int, scratch: UnsafeMutableRawBufferPointer, generation chunkGeneration: UInt64
    ) -> (Int, String?) {
        if thread.requested != info.format {
            if thread.deviceFormat != nil { output.device.close() }
            do {
                thread.deviceFormat = try output.device.open(format: info.format)
                thread.requested = info.format
                // MPD builds an output's filters afresh on every open, so the volume's dither
                // starts over: the same song played again gives the same bytes.
                thread.volume.reset()
            } catch {
                thread.deviceFormat = nil
                thread.requested = nil
                // MPD's message, which `status` shows when no output is left.
                return (0, "Failed to open \"\(output.name)\" (\(output.plugin)); \(error)")
            }
        }
        guard let deviceFormat = thread.deviceFormat else { return (0, "output not open") }
        let samples: UnsafeMutableRawBufferPointer
        if deviceFormat.sample == info.format.sample {
            scratch.copyMemory(from: UnsafeRawBufferPointer(bytes))
            samples = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<bytes.count])
        } else if deviceFormat.sampleRate == info.format.sampleRate && deviceFormat.channels == info.format.channels {
            let count = SampleConversion.convert(
                UnsafeRawBufferPointer(bytes), from: info.format.sample,
                into: scratch, to: deviceFormat.sample)
            samples = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<count])
        } else {
            return (0, "\(output.name): the device took \(deviceFormat) for \(info.format), which cannot be converted")
        }
        if output.softwareVolume && level < 100 { thread.volume.apply(level, to: samples, format: deviceFormat) }
        var done = 0
        while done < samples.count {
            do {
                let taken = try output.device.write(UnsafeRawBufferPointer(rebasing: samples[done...]))
                if taken <= 0 { break }
                done += taken
            } catch {
                return (done, "Failed to play on \"\(output.name)\" (\(output.plugin)); \(error)")
            }
            if done < samples.count && isFlushed(since: chunkGeneration) { break }
        }
        return (done, nil)
    }

    private func closeDevice(_ output: Output, _ thread: inout OutputThreadState) {
        guard thread.deviceFormat != nil else { return }
        output.device.close()
        thread.deviceFormat = nil
        thread.requested = nil
    }

    private func isFlushed(since chunkGeneration: UInt64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return generation != chunkGeneration
    }

    /// Wakes the decoder when it waits for room and enough is free for its next batch; other
    /// chunk releases wake nobody, so a steady output costs no wake-ups but its own. Called
    /// with the lock held.
    private func wakeDecoderIfRoom() {
        if decoderNeedsRoom && buffer.freeChunks >= refillChunks { lock.broadcast() }
    }

    /// The chunk the reference output is writing (``referenceChunk``).
    struct ReferenceChunk {
        /// The output writing it.
        let output: Int
        /// The generation it belongs to; a pause after a seek or a new song does not count it.
        let generation: UInt64
        /// `elapsed` once it is heard, and its playing time.
        let end: Double
        /// See `end`.
        let seconds: Double
        /// The bit rate it was decoded at.
        let bitrate: Int
        /// `elapsed`, the seconds played and the bit rate before ``setPaused(_:)`` counted it,
        /// if it did.
        var before: (playedTime: Double, played: Double, bitrate: Int)?
    }

    /// The first enabled, working output keeps the time. Called with the lock held.
    func chooseReference() {
        reference = outputs.indices.first { enabled[$0] && attached[$0] && !failedOutputs.contains($0) }
    }

    /// An output that cannot play leaves the pipeline until the next `play`; the next working
    /// one becomes the reference. Every failure is logged (MPD logs it too). With none left,
    /// the pipeline pauses on the song and the player hears why, as MPD's player pauses with
    /// the output's error rather than skipping songs that are not at fault. Called with the
    /// lock held.
    private func outputFailed(_ index: Int, message: String, generation chunkGeneration: UInt64) {
        failedOutputs.insert(index)
        failureGenerations[index] = chunkGeneration
        outputErrors[index] = message
        chooseReference()
        post(.log(message), generation: chunkGeneration)
        if reference == nil && chunkGeneration == generation {
            pauseForOutputs(message, generation: chunkGeneration)
        }
        lock.broadcast()
    }
}
