import Foundation
import Synchronization
import Testing

@testable import Playback

/// A song made of consecutive 16-bit sample values, so that the output shows exactly which
/// samples arrived: a gap, an overlap or a lost sample breaks the count.
final class CountingSource: PCMSource {
    let first: Int
    let frames: Int
    var next: Int
    let sourceFormat = PCMFormat(sampleRate: 1000, sample: .s16, channels: 1)
    let replayGain: ReplayGainInfo?
    var bitrate: Int { 16 }
    var position: Double { Double(next - first) / 1000 }

    init(first: Int, frames: Int, replayGain: ReplayGainInfo? = nil) {
        self.first = first
        self.frames = frames
        self.replayGain = replayGain
        next = first
    }

    func seek(to seconds: Double) throws { next = first + Int(seconds * 1000) }

    func read(into buffer: UnsafeMutableRawBufferPointer, format: PCMFormat) throws -> Int {
        let count = min(buffer.count / 2, first + frames - next)
        for index in 0..<count {
            buffer.storeBytes(of: Int16(truncatingIfNeeded: next + index), toByteOffset: index * 2, as: Int16.self)
        }
        next += count
        return count * 2
    }
}

/// An output that keeps every sample it is given.
final class CapturingDevice: AudioOutputDevice, @unchecked Sendable {
    let name = "capture"
    let plugin = "test"
    let samples = Mutex<[Int16]>([])
    let opened = Mutex<[PCMFormat]>([])
    let closes = Mutex(0)
    func open(format: PCMFormat) throws(OutputError) -> PCMFormat {
        opened.withLock { $0.append(format) }
        return format
    }
    func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) -> Int {
        let values = bytes.bindMemory(to: Int16.self)
        samples.withLock { $0.append(contentsOf: values) }
        return bytes.count
    }
    func drain() {}
    func cancel() {}
    func pause() -> Bool { true }
    func close() { closes.withLock { $0 += 1 } }
}

/// An output whose device cannot be opened (an ALSA card that is not there).
final class UnopenableDevice: AudioOutputDevice, @unchecked Sendable {
    let name = "broken"
    let plugin = "alsa"
    func open(format: PCMFormat) throws(OutputError) -> PCMFormat {
        throw OutputError("Failed to open ALSA device \"hw:99\": Invalid argument")
    }
    func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) -> Int { 0 }
    func drain() {}
    func cancel() {}
    func pause() -> Bool { true }
    func close() {}
}

/// An output that takes its time over every write, as a device paced in real time does.
final class SlowDevice: AudioOutputDevice, @unchecked Sendable {
    let name = "slow"
    let plugin = "test"
    func open(format: PCMFormat) throws(OutputError) -> PCMFormat { format }
    func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) -> Int {
        usleep(20_000)
        return bytes.count
    }
    func drain() {}
    func cancel() {}
    func pause() -> Bool { true }
    func close() {}
}

/// An output that plays one chunk per permit the test gives it, and keeps what it played.
final class GatedDevice: AudioOutputDevice, @unchecked Sendable {
    let name = "gated"
    let plugin = "test"
    let permits = DispatchSemaphore(value: 0)
    /// The writes begun, and those that returned.
    let entered = Mutex(0)
    /// See `entered`.
    let written = Mutex(0)
    /// The samples of the writes that returned.
    let samples = Mutex<[Int16]>([])
    func open(format: PCMFormat) throws(OutputError) -> PCMFormat { format }
    func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) -> Int {
        entered.withLock { $0 += 1 }
        permits.wait()
        samples.withLock { $0.append(contentsOf: bytes.bindMemory(to: Int16.self)) }
        written.withLock { $0 += 1 }
        return bytes.count
    }
    func drain() {}
    func cancel() {}
    func pause() -> Bool { true }
    func close() {}
}

/// A song that counts how often the decoder read from it.
final class CountedSource: PCMSource, @unchecked Sendable {
    let inner = CountingSource(first: 0, frames: 10_000_000)
    let reads = Mutex(0)
    var sourceFormat: PCMFormat { inner.sourceFormat }
    var bitrate: Int { inner.bitrate }
    var position: Double { inner.position }
    var replayGain: ReplayGainInfo? { nil }
    func seek(to seconds: Double) throws { try inner.seek(to: seconds) }
    func read(into buffer: UnsafeMutableRawBufferPointer, format: PCMFormat) throws -> Int {
        reads.withLock { $0 += 1 }
        return try inner.read(into: buffer, format: format)
    }
}

final class EventRecorder: Sendable {
    let events = Mutex<[PipelineEvent]>([])
    func record(_ event: PipelineEvent) { events.withLock { $0.append(event) } }
    func wait(until predicate: ([PipelineEvent]) -> Bool) async -> [PipelineEvent] {
        for _ in 0..<1000 {
            let now = events.withLock { $0 }
            if predicate(now) { return now }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return events.withLock { $0 }
    }
}

/// Compares sample runs without printing thousands of values when they differ.
func sameSamples(_ actual: [Int16], _ expected: [Int16]) -> String? {
    if actual == expected { return nil }
    let firstDifference = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
    return
        "got \(actual.count) samples, expected \(expected.count); first difference at \(firstDifference.map(String.init) ?? "the end")"
        + (actual.first.map { ", first sample \($0)" } ?? "")
}

@Suite struct DecodingPipelineTests {
    /// Songs by token: token N counts from N*100_000 for `frames` frames.
    func makePipeline(frames: [Int: Int], device: CapturingDevice, volume: Bool = false) -> (
        DecodingPipeline, EventRecorder
    ) {
        let pipeline = DecodingPipeline(
            outputs: [.init(name: "capture", device: device, format: nil, softwareVolume: volume)],
            bufferBytes: 64 * 1024,
            openSource: { track in
                guard let count = frames[track.token] else { throw CocoaError(.fileNoSuchFile) }
                return CountingSource(first: track.token * 100_000, frames: count)
            })
        let recorder = EventRecorder()
        pipeline.setEventHandler { _, event in recorder.record(event) }
        return (pipeline, recorder)
    }

    func track(_ token: Int) -> PipelineTrack {
        PipelineTrack(token: token, path: "/song/\(token)", duration: nil, audioFormat: "1000:16:1")
    }

    func counting(_ token: Int, _ frames: Int) -> [Int16] {
        (0..<frames).map { Int16(truncatingIfNeeded: token * 100_000 + $0) }
    }

    @Test func twoSongsPlayAsOneStreamWithoutAGap() async {
        let device = CapturingDevice()
        let (pipeline, recorder) = makePipeline(frames: [1: 5000, 2: 7000], device: device)
        defer { pipeline.shutDown() }
        _ = pipeline.play(track(1), from: 0, paused: false)
        pipeline.enqueue(track(2))
        _ = await recorder.wait { !$0.isEmpty }
        // As the player does once the next song is heard: nothing follows it.
        pipeline.enqueue(nil)
        let events = await recorder.wait { $0.contains(.finished) }
        #expect(events.first == .started(track(2)))
        #expect(events.contains(.finished))
        #expect(sameSamples(device.samples.withLock { $0 }, counting(1, 5000) + counting(2, 7000)) == nil)
        #expect(device.opened.withLock { $0.count } == 1)
    }

    @Test func aSongThatFollowsItselfIsReportedAsStartedAgain() async {
        // `repeat` with `random`: a new round may begin with the song that ended the last one.
        // The token stays the same, yet the player must hear that it started again (else it
        // never queues the song after it and playback hangs at the end).
        let device = CapturingDevice()
        let (pipeline, recorder) = makePipeline(frames: [1: 3000], device: device)
        defer { pipeline.shutDown() }
        _ = pipeline.play(track(1), from: 0, paused: false)
        pipeline.enqueue(track(1))
        let started = await recorder.wait { !$0.isEmpty }
        #expect(started.first == .started(track(1)))
        pipeline.enqueue(nil)
        let events = await recorder.wait { $0.contains(.finished) }
        #expect(events == [.started(track(1)), .finished])
        #expect(sameSamples(device.samples.withLock { $0 }, counting(1, 3000) + counting(1, 3000)) == nil)
    }

    /// The song the decoder went on into ahead of the outputs, read under the pipeline's lock.
    func crossedInto(_ pipeline: DecodingPipeline) -> Int? {
        pipeline.transport.withLock { pipeline.transport.decoder.border?.token }
    }

    @Test func changingTheNextSongAfterTheDecoderWentOnTakesItBack() async throws {
        let device = CapturingDevice()
        // Song 1 is long enough that its end is still buffered when the next song changes.
        let (pipeline, recorder) = makePipeline(frames: [1: 3000, 2: 2000, 3: 1000], device: device)
        defer { pipeline.shutDown() }
        pipeline.setPaused(true)
        _ = pipeline.play(track(1), from: 0, paused: true)
        pipeline.enqueue(track(2))
        // With the output paused, the decoder goes on into song 2; taking that back is what this
        // test is about, so it must have happened before the next song changes.
        for _ in 0..<2000 where crossedInto(pipeline) == nil { try? await Task.sleep(for: .milliseconds(5)) }
        try #require(crossedInto(pipeline) == 2, "the decoder did not go on into song 2")
        pipeline.enqueue(track(3))
        pipeline.setPaused(false)
        _ = await recorder.wait { !$0.isEmpty }
        pipeline.enqueue(nil)
        _ = await recorder.wait { $0.contains(.finished) }
        #expect(sameSamples(device.samples.withLock { $0 }, counting(1, 3000) + counting(3, 1000)) == nil)
    }

    @Test func aSongThatCannotBeOpenedIsReported() async {
        let device = CapturingDevice()
        let (pipeline, recorder) = makePipeline(frames: [:], device: device)
        defer { pipeline.shutDown() }
        let generation = pipeline.play(track(9), from: 0, paused: false)
        #expect(generation > 0)
        let events = await recorder.wait { !$0.isEmpty }
        guard case .failed? = events.first else {
            Issue.record("expected a failure, got \(events)")
            return
        }
    }

    @Test func borderPauseStopsAtTheStartOfTheNextSong() async {
        let device = CapturingDevice()
        let (pipeline, recorder) = makePipeline(frames: [1: 2000, 2: 2000], device: device)
        defer { pipeline.shutDown() }
        pipeline.setBorderPause(true)
        _ = pipeline.play(track(1), from: 0, paused: false)
        pipeline.enqueue(track(2))
        let events = await recorder.wait { $0.contains(.borderPause) }
        #expect(events == [.started(track(2)), .borderPause])
        #expect(pipeline.status.state == .pause)
        #expect(pipeline.status.track?.token == 2)
        #expect(sameSamples(device.samples.withLock { $0 }, counting(1, 2000)) == nil)
        pipeline.enqueue(nil)
        pipeline.setPaused(false)
        _ = await recorder.wait { $0.contains(.finished) }
        #expect(sameSamples(device.samples.withLock { $0 }, counting(1, 2000) + counting(2, 2000)) == nil)
    }

    @Test func stopDropsWhatIsBufferedAndPlayStartsAfresh() async {
        let device = CapturingDevice()
        let (pipeline, recorder) = makePipeline(frames: [1: 50_000, 2: 1500], device: device)
        defer { pipeline.shutDown() }
        _ = pipeline.play(track(1), from: 0, paused: true)
        pipeline.stop()
        #expect(pipeline.status.state == .stop)
        _ = pipeline.play(track(2), from: 0.5, paused: false)
        pipeline.enqueue(nil)
        _ = await recorder.wait { $0.contains(.finished) }
        // Paused before anything played, then stopped: only song 2, from 0.5 s on.
        #expect(sameSamples(device.samples.withLock { $0 }, Array(counting(2, 1500)[500...])) == nil)
    }

    @Test func softwareVolumeScalesOutputsThatUseIt() async {
        let device = CapturingDevice()
        let (pipeline, recorder) = makePipeline(frames: [1: 1000], device: device, volume: true)
        defer { pipeline.shutDown() }
        pipeline.setVolume(50)
        _ = pipeline.play(PipelineTrack(token: 0, path: "", duration: nil, audioFormat: nil), from: 0, paused: false)
        _ = await recorder.wait { !$0.isEmpty }
        let (other, otherRecorder) = makePipeline(frames: [1: 1000], device: device, volume: true)
        defer { other.shutDown() }
        device.samples.withLock { $0.removeAll() }
        other.setVolume(50)
        _ = other.play(track(1), from: 0, paused: false)
        other.enqueue(nil)
        _ = await otherRecorder.wait { $0.contains(.finished) }
        // The same scaling as MPD's software mixer, applied here in one go.
        var expected = counting(1, 1000)
        var volume = SoftwareVolume()
        expected.withUnsafeMutableBytes {
            volume.apply(50, to: $0, format: PCMFormat(sampleRate: 1000, sample: .s16, channels: 1))
        }
        #expect(sameSamples(device.samples.withLock { $0 }, expected) == nil)
        _ = recorder
    }

    /// The song queued after the playing one cannot be opened: the stream ends after the
    /// playing song and the player hears `finished` (it then tries that song itself and skips
    /// it). The decoder used to forget that it was waiting for the next song and stopped
    /// there, leaving the player in `play` for ever.
    @Test func aNextSongThatCannotBeOpenedEndsTheStream() async {
        let device = CapturingDevice()
        let (pipeline, recorder) = makePipeline(frames: [1: 2000], device: device)
        defer { pipeline.shutDown() }
        _ = pipeline.play(track(1), from: 0, paused: false)
        pipeline.enqueue(track(9))
        let events = await recorder.wait { $0.contains(.finished) }
        #expect(events == [.finished])
        #expect(sameSamples(device.samples.withLock { $0 }, counting(1, 2000)) == nil)
    }

    /// MPD builds an output's filters afresh on every open, so its software volume's dither
    /// restarts and the same song played again gives the same samples.
    @Test func softwareVolumeDitherStartsAfreshOnEveryOpen() async {
        let device = CapturingDevice()
        let (pipeline, recorder) = makePipeline(frames: [1: 1000], device: device, volume: true)
        defer { pipeline.shutDown() }
        pipeline.setVolume(50)
        for round in 1...2 {
            _ = pipeline.play(track(1), from: 0, paused: false)
            pipeline.enqueue(nil)
            _ = await recorder.wait { $0.filter { $0 == .finished }.count == round }
            pipeline.stop()
            // The output closes its device when it sees the stop (a `play` right after the
            // stop would find it still open, and keep it).
            for _ in 0..<400 where device.closes.withLock({ $0 }) < round {
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        let samples = device.samples.withLock { $0 }
        #expect(samples.count == 2000)
        #expect(sameSamples(Array(samples[1000...]), Array(samples[..<1000])) == nil)
        #expect(device.opened.withLock { $0.count } == 2)
    }

    /// With no output able to play, the pipeline pauses on the song and reports MPD's message
    /// (`Failed to open "NAME" (PLUGIN); …`) as an output failure, not as a song that cannot be
    /// decoded; a new `play` tries the output again.
    @Test func whenNoOutputCanPlayThePipelinePausesOnTheSong() async {
        let pipeline = DecodingPipeline(
            outputs: [
                .init(name: "broken", plugin: "alsa", device: UnopenableDevice(), format: nil, softwareVolume: false)
            ],
            bufferBytes: 64 * 1024,
            openSource: { track in CountingSource(first: 0, frames: 50_000) })
        defer { pipeline.shutDown() }
        let recorder = EventRecorder()
        pipeline.setEventHandler { _, event in recorder.record(event) }
        _ = pipeline.play(track(1), from: 0, paused: false)
        let message = "Failed to open \"broken\" (alsa); Failed to open ALSA device \"hw:99\": Invalid argument"
        #expect(await recorder.wait { !$0.isEmpty } == [.outputsFailed(message)])
        #expect(pipeline.status.state == .pause)
        #expect(pipeline.status.outputsFailure == message)
        #expect(pipeline.status.track?.token == 1)
        #expect(pipeline.outputStatuses.first?.error == message)
        _ = pipeline.play(track(1), from: 0.5, paused: false)
        #expect(await recorder.wait { $0.count == 2 } == [.outputsFailed(message), .outputsFailed(message)])
    }

    /// Once the buffer is full, the decoder waits until an eighth of it is free and refills it
    /// in one batch, rather than decoding a chunk each time an output has played one: a
    /// steady playback wakes the decoder a few times a minute, not 43 times a second.
    @Test func theDecoderRefillsTheBufferInBatches() async {
        let device = GatedDevice()
        let source = CountedSource()
        // 64 chunks of 4 KiB: a batch is 8 chunks.
        let pipeline = DecodingPipeline(
            outputs: [.init(name: "gated", device: device, format: nil, softwareVolume: false)],
            bufferBytes: 64 * 4096,
            openSource: { _ in source })
        defer {
            for _ in 0..<1000 { device.permits.signal() }
            pipeline.shutDown()
        }
        #expect(pipeline.transport.decoder.refillChunks == 8)
        _ = pipeline.play(track(1), from: 0, paused: false)
        func settle() async -> Int {
            var last = -1
            for _ in 0..<100 {
                try? await Task.sleep(for: .milliseconds(10))
                let now = source.reads.withLock { $0 }
                if now == last { return now }
                last = now
            }
            return last
        }
        let full = await settle()
        #expect(full == 64, "one read per chunk until the buffer is full")
        // The output plays 7 chunks (and waits to play the next): 7 free, not enough.
        for _ in 0..<7 { device.permits.signal() }
        #expect(await settle() == full)
        // One more: 8 free chunks, and the decoder fills them at once.
        device.permits.signal()
        #expect(await settle() == full + 8)
    }
}

/// An output that runs dry once, on its third write, and recovers (as ALSA's `snd_pcm_recover`
/// after `EPIPE`): every sample still arrives.
final class UnderrunningDevice: AudioOutputDevice, @unchecked Sendable {
    let name = "card"
    let plugin = "alsa"
    let capture = CapturingDevice()
    let writes = Mutex(0)
    var underruns: Int { writes.withLock { $0 } >= 3 ? 1 : 0 }
    func open(format: PCMFormat) throws(OutputError) -> PCMFormat { format }
    func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) -> Int {
        writes.withLock { $0 += 1 }
        return try capture.write(bytes)
    }
    func drain() {}
    func cancel() {}
    func pause() -> Bool { true }
    func close() {}
}

@Suite struct OutputUnderrunTests {
    /// An underrun the device recovered from is logged once, as a warning naming the output,
    /// and playback goes on: every sample arrives and the stream ends normally.
    @Test func anUnderrunIsLoggedOnceAndPlaybackGoesOn() async {
        let device = UnderrunningDevice()
        let lines = Mutex<[PipelineLogEntry]>([])
        let pipeline = DecodingPipeline(
            outputs: [.init(name: "card", plugin: "alsa", device: device, format: nil, softwareVolume: false)],
            bufferBytes: 64 * 1024, log: { entry in lines.withLock { $0.append(entry) } },
            openSource: { track in CountingSource(first: track.token * 100_000, frames: 20_000) })
        let recorder = EventRecorder()
        pipeline.setEventHandler { _, event in recorder.record(event) }
        defer { pipeline.shutDown() }
        _ = pipeline.play(
            PipelineTrack(token: 1, path: "/song/1", duration: nil, audioFormat: "1000:16:1"), from: 0, paused: false)
        pipeline.enqueue(nil)
        let events = await recorder.wait { $0.contains(.finished) }
        #expect(events.contains(.finished))
        let samples = device.capture.samples.withLock { $0 }
        #expect(sameSamples(samples, (0..<20_000).map { Int16(truncatingIfNeeded: 100_000 + $0) }) == nil)
        for _ in 0..<200 where !lines.withLock({ $0.contains { $0.severity == .warning } }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let warnings = lines.withLock { $0.filter { $0.severity == .warning } }
        #expect(warnings.map(\.text) == ["audio output \"card\" (alsa) ran dry (underrun); recovered"])
    }
}
