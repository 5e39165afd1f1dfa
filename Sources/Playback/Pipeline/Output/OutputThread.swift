import Foundation
import MusicModel
import Platform

/// One output's thread: it plays every chunk of the buffer on its device; the reference output
/// also keeps the time and reports song changes.
///
/// Each turn of its loop decides the next device call under the transport's lock
/// (``nextAction()``, which waits when there is nothing to do), makes the call outside it, and
/// records the result under it again. The device's own state is a ``DeviceLifecycle`` that only
/// this thread touches.
final class OutputThread: @unchecked Sendable {
    // Only the thread started by `start(reader:)` touches the mutable properties; the shared
    // state it reads is behind the transport's lock and the `Locked` values.
    /// What the thread does next, decided under the lock and done outside it.
    private enum Action {
        /// Close the device: the output left the pipeline.
        case release
        /// Hand the pause to the device.
        case pause
        /// Open the closed device in the format the decoder expects (``PipelineTransport/expectedFormat``).
        case prepare(PCMFormat)
        /// Drop what the device holds (a new generation); close it after `stop`.
        case flush(stopped: Bool)
        /// Play out the device at the end of the stream of `generation`; the reference output
        /// then reports `finished`.
        case drain(generation: UInt64, isReference: Bool)
        /// Play the chunk, after handing the device `tags` if the chunk begins a song or
        /// carries a station's new title.
        case play(UnsafeMutableRawBufferPointer, ChunkInfo, generation: UInt64, tags: [TagValue]?)
    }

    /// Ends the wait for the device's room when the transport changes (``PipelineTransport/broadcast()``):
    /// the thread then looks whether a pause, a seek or a stop came, and waits on otherwise.
    let roomWake = WakeSignal()

    let index: Int
    /// The output it plays.
    let output: PipelineOutput
    /// The shared hand-off with the decoder and the other outputs.
    let transport: PipelineTransport
    private let nowPlaying: Locked<NowPlaying>
    /// The software volume, read once per chunk.
    let settings: Locked<PipelineSettings>
    private let events: PipelineEventDispatcher
    private var reader: Int?
    private var seenGeneration: UInt64 = 0
    /// The generation the device was last opened ahead of its first chunk for: once per play.
    private var preparedGeneration: UInt64?
    /// The song of the last chunk this output played since a flush.
    private var currentToken: Int?
    /// For a device that takes tags: the song and the stream description it last got tags of.
    private var tagged: (token: Int?, serial: UInt32) = (nil, 0)
    /// Whether the device takes tags (``AudioOutputDevice/takesTags``), asked once rather than
    /// through the protocol for every chunk.
    private let takesTags: Bool
    /// Where the device is.
    var device = DeviceLifecycle()
    /// The software volume stage, whose dither runs on from chunk to chunk.
    var volume = SoftwareVolume()
    /// Whether the device opened before: the first opening is logged at the default level,
    /// so an operator sees that the output works, the later ones as detail.
    private var openedBefore = false
    /// The device's underrun count last seen, and the line each new one logs, made once here
    /// so that posting it from the output thread copies a reference and allocates nothing.
    private var underrunsSeen = 0
    private let underrunEntry: PipelineLogEntry

    /// Creates the thread's state for output `index`.
    init(
        index: Int, output: PipelineOutput, transport: PipelineTransport, nowPlaying: Locked<NowPlaying>,
        settings: Locked<PipelineSettings>, events: PipelineEventDispatcher
    ) {
        self.index = index
        self.output = output
        self.transport = transport
        self.nowPlaying = nowPlaying
        self.settings = settings
        self.events = events
        device.keepsOpen = output.alwaysOn
        takesTags = output.device.takesTags
        // MPD logs `Underrun on ALSA device "…"` at debug level; an underrun is a gap the
        // listener hears, so here it is a warning, worded as the opening line is.
        underrunEntry = PipelineLogEntry(
            severity: .warning, text: "audio output \"\(output.name)\" (\(output.plugin)) ran dry (underrun); recovered"
        )
        let wake = roomWake
        transport.withLock { transport.registerRoomWake(wake) }
    }

    /// Starts the thread with `reader`, registered before any thread runs so that it misses
    /// none of the first chunks (`nil` for an output this pipeline does not hold).
    func start(reader: Int?) {
        self.reader = reader
        NamedThread.start(name: "tonearm.out.\(index)", stackSize: 1 << 20) { [self] in run() }
    }

    private func run() {
        // As MPD's output threads: ahead of the decoder and the rest of the machine whenever a
        // chunk or the device is ready (see ``AudioThreadScheduling``).
        AudioThreadScheduling.makeCurrentThreadRealtime()
        // Room for a chunk widened from 16-bit samples to 32-bit ones.
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: transport.buffer.chunkSize * 2, alignment: 16)
        defer { scratch.deallocate() }
        while let action = transport.withLock({ nextAction() }) {
            switch action {
            case .release:
                perform(device.release())
                transport.withLock {
                    transport.outputs.released(index)
                    transport.broadcast()  // a detach waits for the device
                }
            case .pause:
                perform(.pause)
            case .prepare(let format):
                // A failure is left to the first chunk, which tries again and reports it.
                _ = openIfNeeded(for: format)
            case .flush(let stopped):
                perform(device.flush(stopped: stopped))
            case .drain(let generation, let isReference):
                perform(device.end())
                transport.withLock { endOfStream(generation: generation, isReference: isReference) }
            case .play(let bytes, let info, let generation, let tags):
                if let tags { output.device.sendTag(tags) }
                // nil: interrupted before writing; the next action sees why.
                guard let (done, failure) = play(bytes, info, scratch: scratch, generation: generation) else {
                    continue
                }
                transport.withLock {
                    played(info, bytes: done, failure: failure, generation: generation)
                }
            }
        }
        perform(device.release())
    }

    /// Decides the next action, waiting for a chunk, a flush, the end of a pause or the output's
    /// return; `nil` when the pipeline shuts down. Called with the lock held.
    private func nextAction() -> Action? {
        let buffer = transport.buffer
        while true {
            if transport.isShutDown {
                if let reader { buffer.removeReader(reader) }
                reader = nil
                return nil
            }
            guard let reader, transport.outputs[index].plays else {
                if let reader {
                    // Disabled, failed or moved away: give up the reader and the device; a
                    // failed output tries again with the next `play` (a new generation), as
                    // MPD retries it.
                    buffer.removeReader(reader)
                    self.reader = nil
                    if device.actualFormat != nil { return .release }
                    transport.outputs.released(index)
                    transport.broadcast()  // the decoder may have waited for this reader
                }
                while !transport.isShutDown && !transport.outputs.mayResume(index, generation: transport.generation) {
                    transport.wait()
                }
                if transport.isShutDown { continue }
                self.reader = transport.outputs.resume(index, buffer: buffer)
                transport.broadcast()  // a decoder that had no reader to decode for may go on
                seenGeneration = transport.generation
                currentToken = nil
                continue
            }
            // Wait for a chunk, a flush, or the end of a pause.
            while !transport.isShutDown && transport.outputs[index].plays && transport.generation == seenGeneration
                && (transport.paused || !buffer.hasChunk(reader: reader))
            {
                if transport.paused, device.pause() == .pause { return .pause }
                if let format = formatToPrepare() { return .prepare(format) }
                // A device that streams while paused (or stopped and kept open) is called again
                // whenever it asks to be; the wait between calls ends at once when the
                // transport changes, so a resume or a seek is not held up by the silence.
                if device.isPaused, let delay = output.device.nextPauseCall() {
                    if delay <= 0 { return .pause }
                    _ = transport.wait(until: Date(timeIntervalSinceNow: delay))
                    continue
                }
                transport.wait()
            }
            if transport.isShutDown || !transport.outputs[index].plays { continue }
            if transport.generation != seenGeneration {
                seenGeneration = transport.generation
                currentToken = nil
                return .flush(stopped: nowPlaying.withLock { $0.isStopped })
            }
            let (bytes, info) = buffer.chunk(reader: reader)
            let isReference = transport.outputs.reference == index
            if info.isEnd { return .drain(generation: transport.generation, isReference: isReference) }
            if isReference && startsSong(info, reader: reader) {
                currentToken = info.token
                if transport.borderPause {
                    transport.paused = true
                    nowPlaying.withLock { $0.pauseAtBorder() }
                    events.post(.borderPause, generation: transport.generation)
                    continue
                }
            }
            currentToken = info.token
            if isReference && info.described != 0 {
                events.post(.streamReached(serial: info.described), generation: transport.generation)
            }
            if isReference {
                let seconds = Double(bytes.count) / Double(info.format.bytesPerSecond)
                let generation = transport.generation
                nowPlaying.withLock {
                    $0.willWrite(
                        output: index, generation: generation, end: info.time + seconds, seconds: seconds,
                        bitrate: info.bitrate)
                }
            }
            return .play(bytes, info, generation: transport.generation, tags: tagsToSend(info))
        }
    }

    /// The format to open the closed device in before the first chunk comes, once per
    /// generation: the decoder's expectation while it opens the file. Called with the lock held.
    private func formatToPrepare() -> PCMFormat? {
        let generation = transport.generation
        guard !transport.paused, device.actualFormat == nil, preparedGeneration != generation,
            let expected = transport.expectedFormat, expected.generation == generation
        else { return nil }
        preparedGeneration = generation
        return expected.format
    }

    /// The tags to hand a device that takes them before it plays the chunk: the song's at its
    /// first chunk, a station's at the chunk its new title came with. Called with the lock held.
    private func tagsToSend(_ info: ChunkInfo) -> [TagValue]? {
        guard takesTags else { return nil }
        var tags: [TagValue]?
        if tagged.token != info.token {
            tagged.token = info.token
            tags = nowPlaying.withLock { $0.track(info.token)?.tags }
        }
        if info.described != 0, info.described != tagged.serial {
            tagged.serial = info.described
            if let described = nowPlaying.withLock({ $0.tags(described: info.described) }), !described.isEmpty {
                tags = described
            }
        }
        return tags
    }

    /// Whether the reference output's next chunk is the first one heard of a song, and if so
    /// reports it. After a flush the output has heard nothing yet; the song it was asked to
    /// play is the one `NowPlaying` shows. The first chunk may already be the next song's, when
    /// that song gave no audio at all (a seek past its end): the next song is heard then. The
    /// same song may also follow itself (`repeat` with `random`, when the new round starts with
    /// the song that ended the last one): the token does not change then, so the first chunk
    /// after the gapless border counts too (a crossfade's border is its first mixed chunk,
    /// still the outgoing song's, so not there). Called with the lock held.
    private func startsSong(_ info: ChunkInfo, reader: Int) -> Bool {
        let scheduler = transport.decoder
        let atBorder =
            scheduler.border.map { $0.token == info.token && $0.index == transport.buffer.position(reader: reader) }
            ?? false
        guard let previous = currentToken ?? nowPlaying.withLock({ $0.playingToken }),
            previous != info.token || (atBorder && scheduler.fadeStart == nil)
        else { return false }
        nowPlaying.withLock { $0.songStarted(info.token, at: info.time) }
        transport.decoder.reachedSong(info.token)
        events.post(.started(token: info.token), generation: transport.generation)
        transport.broadcast()
        return true
    }

    /// The end-of-stream chunk was played out. Called with the lock held.
    private func endOfStream(generation: UInt64, isReference: Bool) {
        guard generation == transport.generation, let reader else { return }
        transport.buffer.release(reader: reader)
        transport.wakeDecoderIfRoom()
        if isReference {
            nowPlaying.withLock { $0.finished() }
            events.post(.finished, generation: generation)
        }
    }

    /// Records a chunk's write: the time it played, or the output's failure. Called with the
    /// lock held.
    private func played(_ info: ChunkInfo, bytes done: Int, failure: String?, generation: UInt64) {
        var heard: (time: Double, seconds: Double, bitrate: Int)?
        if failure == nil, transport.outputs.reference == index, let format = device.actualFormat {
            heard = (info.time, Double(done) / Double(format.bytesPerSecond), info.bitrate)
        }
        nowPlaying.withLock { $0.didWrite(output: index, generation: generation, heard: heard) }
        if let failure {
            outputFailed(failure, generation: generation)
            return
        }
        guard generation == transport.generation, let reader else { return }
        transport.buffer.release(reader: reader)
        transport.wakeDecoderIfRoom()
    }

    /// Logs each underrun the device recovered from since the last chunk (``AudioOutputDevice/underruns``).
    /// Called after every write, outside the lock; allocates nothing.
    func noteUnderruns(generation: UInt64) {
        let count = output.device.underruns
        guard count != underrunsSeen else { return }
        underrunsSeen = count
        events.post(.log(underrunEntry), generation: generation)
    }

    /// Logs the device's opening in the format it took, as MPD logs it (at `verbose` there).
    func logOpened(_ format: PCMFormat) {
        let line = "audio output \"\(output.name)\" (\(output.plugin)) opened: \(format)"
        events.post(
            .log(PipelineLogEntry(severity: openedBefore ? .info : .notice, text: line)), generation: seenGeneration)
        openedBefore = true
    }

    /// An output that cannot play leaves the pipeline until the next `play`; the next working
    /// one becomes the reference. Every failure is logged (MPD logs it too). With none left, the
    /// pipeline pauses on the song and the player hears why, as MPD's player pauses with the
    /// output's error rather than skipping songs that are not at fault. Called with the lock held.
    private func outputFailed(_ message: String, generation: UInt64) {
        transport.outputs.failed(index, message: message, generation: generation)
        events.post(.log(.error(message)), generation: generation)
        if transport.outputs.reference == nil && generation == transport.generation {
            transport.pauseForOutputs(message, generation: generation, nowPlaying: nowPlaying, events: events)
        }
        transport.broadcast()
    }
}
