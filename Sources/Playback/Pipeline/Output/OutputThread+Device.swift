import Platform

/// The device calls of an output thread, made outside the transport's lock.
extension OutputThread {
    /// Makes the device call `action` asks for.
    func perform(_ action: DeviceLifecycle.Action) {
        switch action {
        case .none:
            break
        case .open:
            break  // opening is part of a write (``play(_:_:scratch:generation:)``)
        case .pause:
            _ = output.device.pause()
        case .cancel(let close):
            output.device.cancel()
            if close { output.device.close() }
        case .cancelAndPause:
            output.device.cancel()
            _ = output.device.pause()
        case .drain:
            output.device.drain()
        case .close:
            output.device.close()
        }
    }

    /// Opens the device for chunks of `format` unless it is open in it (closing it first when
    /// it is open in another).
    /// - Returns: MPD's message when the device failed to open, which `status` shows when no
    ///   output is left; nil when it is open.
    func openIfNeeded(for format: PCMFormat) -> String? {
        guard case .open(let format, let reopen) = device.play(format) else { return nil }
        if reopen { output.device.close() }
        do {
            let actual = try output.device.open(format: format)
            device.opened(format, actual: actual)
            logOpened(actual)
            // MPD builds an output's filters afresh on every open, so the volume's dither
            // starts over: the same song played again gives the same bytes.
            volume.reset()
            return nil
        } catch {
            device.openFailed()
            return "Failed to open \"\(output.name)\" (\(output.plugin)); \(error)"
        }
    }

    /// Opens the device for the chunk's format if needed, converts and scales the samples,
    /// and writes them once the device has room for all of them.
    /// - Returns: the device bytes written and the failure, if any; nil when a pause, a flush
    ///   or the output's leaving came while it waited for room: nothing was written, and the
    ///   chunk stays to be played (or dropped) by what comes next.
    func play(
        _ bytes: UnsafeMutableRawBufferPointer, _ info: ChunkInfo, scratch: UnsafeMutableRawBufferPointer,
        generation chunkGeneration: UInt64
    ) -> (Int, String?)? {
        if let failure = openIfNeeded(for: info.format) { return (0, failure) }
        guard let deviceFormat = device.actualFormat else { return (0, "output not open") }
        let samples: UnsafeMutableRawBufferPointer
        if deviceFormat.sample == info.format.sample {
            scratch.copyMemory(from: UnsafeRawBufferPointer(bytes))
            samples = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<bytes.count])
        } else if deviceFormat.sampleRate == info.format.sampleRate && deviceFormat.channels == info.format.channels {
            let count = SampleConversion.convert(
                UnsafeRawBufferPointer(bytes), from: info.format.sample, into: scratch, to: deviceFormat.sample)
            samples = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<count])
        } else {
            return (0, "\(output.name): the device took \(deviceFormat) for \(info.format), which cannot be converted")
        }
        // The wait ends early when the transport changes, so that a pause or a seek is heard at
        // once rather than when a blocked write returns. The signal is taken back before the
        // look, so one given after the look ends the next wait.
        while !output.device.waitForRoom(samples.count, interruptedBy: roomWake.descriptor) {
            roomWake.clear()
            let interrupted = transport.withLock {
                transport.isShutDown || transport.paused || transport.generation != chunkGeneration
                    || !transport.outputs[index].plays
            }
            if interrupted { return nil }
        }
        let level = settings.withLock { $0.volume }
        if output.softwareVolume && level < 100 { volume.apply(level, to: samples, format: deviceFormat) }
        var done = 0
        while done < samples.count {
            do {
                let taken = try output.device.write(UnsafeRawBufferPointer(rebasing: samples[done...]))
                if taken <= 0 { break }
                done += taken
            } catch {
                return (done, "Failed to play on \"\(output.name)\" (\(output.plugin)); \(error)")
            }
            if done < samples.count && transport.withLock({ transport.generation != chunkGeneration }) { break }
        }
        noteUnderruns(generation: chunkGeneration)
        return (done, nil)
    }
}
