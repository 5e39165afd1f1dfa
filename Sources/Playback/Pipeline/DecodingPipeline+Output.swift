import Foundation

/// The output threads: each plays every chunk on its device; the reference output also
/// keeps the time and reports song changes.
extension DecodingPipeline {
    func outputLoop(_ index: Int, reader: Int) {
        let output = outputs[index]
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: buffer.chunkSize, alignment: 16)
        defer { scratch.deallocate() }
        var openFormat: PCMFormat?
        var seenGeneration: UInt64 = 0
        var currentToken: Int?
        var devicePaused = false

        lock.lock()
        while true {
            // Wait for a chunk, a flush, or the end of a pause.
            while !shutdown && (generation == seenGeneration && (paused || !buffer.hasChunk(reader: reader))) {
                if paused && !devicePaused && openFormat != nil {
                    lock.unlock()
                    devicePaused = output.sink.pause()
                    lock.lock()
                    continue
                }
                lock.wait()
            }
            if shutdown { break }
            if generation != seenGeneration {
                // Stop, seek or a new song: drop what the device holds.
                seenGeneration = generation
                currentToken = nil
                let wasOpen = openFormat != nil
                let stopped = playingToken == nil
                lock.unlock()
                if wasOpen { output.sink.cancel() }
                if stopped && wasOpen {
                    output.sink.close()
                    openFormat = nil
                }
                devicePaused = false
                lock.lock()
                continue
            }
            let (bytes, info) = buffer.chunk(reader: reader)
            let chunkGeneration = generation
            let isReference = reference == index
            if info.isEnd {
                lock.unlock()
                if openFormat != nil { output.sink.drain() }
                lock.lock()
                if chunkGeneration == generation {
                    buffer.release(reader: reader)
                    if isReference {
                        playingToken = nil
                        post(.finished, generation: chunkGeneration)
                    }
                }
                continue
            }
            if let previous = currentToken, previous != info.token, isReference {
                // The reference output reaches the next song: that is when it is heard.
                playingToken = info.token
                playedTime = info.time
                if let border, border.token == info.token { self.border = nil }
                post(.started(token: info.token), generation: chunkGeneration)
                lock.broadcast()
                if borderPause {
                    paused = true
                    post(.borderPause, generation: chunkGeneration)
                    currentToken = info.token
                    continue
                }
            }
            currentToken = info.token
            let level = volume
            lock.unlock()

            devicePaused = false
            var failure: String?
            if openFormat != info.format {
                if openFormat != nil { output.sink.close() }
                do {
                    openFormat = try output.sink.open(format: info.format)
                } catch {
                    openFormat = nil
                    failure = "\(error)"
                }
            }
            var done = 0
            if failure == nil {
                scratch.copyMemory(from: UnsafeRawBufferPointer(bytes))
                let samples = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<bytes.count])
                if output.softwareVolume && level < 100 { applyVolume(samples, info.format, level) }
                while done < samples.count && failure == nil {
                    do {
                        let taken = try output.sink.write(UnsafeRawBufferPointer(rebasing: samples[done...]))
                        if taken <= 0 { break }
                        done += taken
                    } catch {
                        failure = "\(error)"
                    }
                    if done < samples.count && isFlushed(since: chunkGeneration) { break }
                }
            }

            lock.lock()
            if let failure {
                outputFailed(index, reader: reader, message: failure, generation: chunkGeneration)
                lock.unlock()
                return
            }
            if chunkGeneration == generation {
                buffer.release(reader: reader)
                if reference == index {
                    let seconds = Double(done) / Double(info.format.bytesPerSecond)
                    playedTime = info.time + seconds
                    played += seconds
                    bitrate = info.bitrate
                    lock.broadcast()
                }
            }
        }
        buffer.removeReader(reader)
        lock.unlock()
    }

    private func isFlushed(since chunkGeneration: UInt64) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return generation != chunkGeneration
    }

    /// An output that cannot play leaves the pipeline; the next working one becomes the
    /// reference. With none left, the player hears why. Called with the lock held.
    private func outputFailed(_ index: Int, reader: Int, message: String, generation chunkGeneration: UInt64) {
        buffer.removeReader(reader)
        failedOutputs.insert(index)
        if reference == index {
            reference = outputs.indices.first { !failedOutputs.contains($0) }
        }
        lock.broadcast()
        if reference == nil {
            post(.failed(message), generation: chunkGeneration)
        }
    }
}
