import Foundation
import Synchronization
import Testing

@testable import Playback

/// A song of known duration at 8 kHz mono whose samples count up from `first` (wrapping), or
/// stay at `first` when `constant`: the output shows which samples arrived and how they mixed.
final class TimedSource: PCMSource {
    let first: Int
    let frames: Int
    let constant: Bool
    var next = 0
    let sourceFormat = PCMFormat(sampleRate: 8000, sample: .s16, channels: 1)
    var replayGain: ReplayGainInfo? { nil }
    var bitrate: Int { 128 }
    var position: Double { Double(next) / 8000 }
    var duration: Double? { Double(frames) / 8000 }

    init(first: Int, seconds: Int, constant: Bool) {
        self.first = first
        frames = seconds * 8000
        self.constant = constant
    }

    func seek(to seconds: Double) throws { next = Int((seconds * 8000).rounded()) }

    func read(into buffer: UnsafeMutableRawBufferPointer, format: PCMFormat) throws -> Int {
        let count = min(buffer.count / 2, frames - next)
        for index in 0..<count {
            let value = constant ? first : first + next + index
            buffer.storeBytes(of: Int16(truncatingIfNeeded: value), toByteOffset: index * 2, as: Int16.self)
        }
        next += count
        return count * 2
    }

    /// The samples from `start` seconds to the end.
    func samples(from start: Double) -> [Int16] {
        (Int(start * 8000)..<frames).map { Int16(truncatingIfNeeded: constant ? first : first + $0) }
    }
}

/// An output that keeps what it plays, one chunk per permit once the test gates it.
final class GatedCapturingDevice: AudioOutputDevice, @unchecked Sendable {
    let name = "capture"
    let plugin = "test"
    let samples = Mutex<[Int16]>([])
    let gated = Mutex(false)
    let permits = DispatchSemaphore(value: 0)
    func open(format: PCMFormat) throws(OutputError) -> PCMFormat { format }
    func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) -> Int {
        if gated.withLock({ $0 }) { permits.wait() }
        samples.withLock { $0.append(contentsOf: bytes.bindMemory(to: Int16.self)) }
        return bytes.count
    }
    func drain() {}
    func cancel() {}
    func pause() -> Bool { true }
    func close() {}
}

/// The decoder's crossfade, end to end through the pipeline with synthetic songs (8 kHz mono:
/// a 4 KiB chunk is 0.256 s, so `crossfade 1` is 4 chunks).
@Suite struct CrossfadePipelineTests {
    static let chunkFrames = 2048

    func makePipeline(
        songs: [Int: (first: Int, seconds: Int, constant: Bool)], device: any AudioOutputDevice,
        crossfade: CrossfadeSettings
    ) -> (DecodingPipeline, EventRecorder) {
        let pipeline = DecodingPipeline(
            outputs: [.init(name: "capture", device: device, format: nil, softwareVolume: false)],
            bufferBytes: 64 * 1024,
            openSource: { track in
                guard let song = songs[track.token] else { throw CocoaError(.fileNoSuchFile) }
                return TimedSource(first: song.first, seconds: song.seconds, constant: song.constant)
            })
        pipeline.setCrossfade(crossfade)
        let recorder = EventRecorder()
        pipeline.setEventHandler { _, event in recorder.record(event) }
        return (pipeline, recorder)
    }

    func track(_ token: Int) -> PipelineTrack {
        PipelineTrack(token: token, path: "/song/\(token)", duration: nil, audioFormat: "8000:16:1")
    }

    /// Plays song 1 into song 2 (queued before the output starts) to the end of the stream.
    func playOneIntoTwo(_ pipeline: DecodingPipeline, _ recorder: EventRecorder) async -> [PipelineEvent] {
        _ = pipeline.play(track(1), from: 0, paused: true)
        pipeline.enqueue(track(2))
        pipeline.setPaused(false)
        _ = await recorder.wait { !$0.isEmpty }
        // As the player does once the next song is heard: nothing follows it.
        pipeline.enqueue(nil)
        return await recorder.wait { $0.contains(.finished) }
    }

    @Test func theLastChunksOfASongAreMixedWithTheFirstOfTheNext() async {
        let device = GatedCapturingDevice()
        let (pipeline, recorder) = makePipeline(
            songs: [1: (1000, 21, true), 2: (3000, 21, true)], device: device, crossfade: CrossfadeSettings(seconds: 1))
        defer { pipeline.shutDown() }
        let events = await playOneIntoTwo(pipeline, recorder)
        #expect(events.first == .started(track(2)))
        let samples = device.samples.withLock { $0 }
        // 21 s = 82 chunks and 64 frames: the fade takes the last 4 chunks of song 1 (the last
        // one short) and the first 4 whole chunks of song 2.
        let overlap = 3 * Self.chunkFrames + 64
        #expect(samples.count == 2 * 21 * 8000 - overlap)
        let fadeStart = 21 * 8000 - overlap
        #expect(samples[..<fadeStart].allSatisfy { $0 == 1000 })
        for (chunk, portion) in [0, 0.25, 0.5, 0.75].enumerated() {
            let start = fadeStart + chunk * Self.chunkFrames
            let end = chunk == 3 ? start + 64 : start + Self.chunkFrames
            let incoming = Double(CrossfadeMix.incomingVolume(portion: Float(portion)))
            let exact = (3000 * incoming + 1000 * (1024 - incoming)) / 1024
            #expect(samples[start..<end].allSatisfy { abs(Double($0) - exact) <= 3 }, "chunk \(chunk)")
        }
        // The rest of the short chunk, and everything after, is song 2 alone.
        #expect(samples[(fadeStart + overlap)...].allSatisfy { $0 == 3000 })
    }

    @Test func theDecoderWaitsForTheNextSongBeforeTheFade() async {
        let device = GatedCapturingDevice()
        let (pipeline, recorder) = makePipeline(
            songs: [1: (1000, 21, true), 2: (3000, 21, true)], device: device, crossfade: CrossfadeSettings(seconds: 1))
        defer { pipeline.shutDown() }
        // 1.5 s from the end (6 chunks, the last short), and the next song told late: the
        // decoder must not decode into the last 4 chunks before it knows.
        _ = pipeline.play(track(1), from: 19.5, paused: false)
        for _ in 0..<200 where !pipeline.transport.withLock({ pipeline.transport.decoder.fadeAwaitsNext }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
        #expect(pipeline.transport.withLock { pipeline.transport.decoder.fadeAwaitsNext })
        pipeline.enqueue(track(2))
        _ = await recorder.wait { !$0.isEmpty }
        pipeline.enqueue(nil)
        _ = await recorder.wait { $0.contains(.finished) }
        let samples = device.samples.withLock { $0 }
        let overlap = 3 * Self.chunkFrames + 1760
        #expect(samples.count == 12000 - overlap + 21 * 8000)
        #expect(samples[..<(2 * Self.chunkFrames)].allSatisfy { $0 == 1000 })
        // Two chunks of song 1 alone, four mixed (the last one partly song 2 alone), then song 2.
        #expect(samples[(2 * Self.chunkFrames)..<(3 * Self.chunkFrames)].allSatisfy { abs(Int($0) - 1000) <= 3 })
        #expect(samples[(6 * Self.chunkFrames)...].allSatisfy { $0 == 3000 })
    }

    @Test func songsShorterThan20SecondsFollowEachOtherWhole() async {
        let device = GatedCapturingDevice()
        let (pipeline, recorder) = makePipeline(
            songs: [1: (1000, 19, true), 2: (3000, 21, true)], device: device, crossfade: CrossfadeSettings(seconds: 1))
        defer { pipeline.shutDown() }
        _ = await playOneIntoTwo(pipeline, recorder)
        let samples = device.samples.withLock { $0 }
        #expect(samples == [Int16](repeating: 1000, count: 19 * 8000) + [Int16](repeating: 3000, count: 21 * 8000))
    }

    /// Polls `condition` every 5 ms until it holds (true) or a minute passed (false): a bound
    /// for a hung pipeline, far above any scheduling delay, not a timing figure.
    static func waitUntil(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    @Test func anotherNextSongDuringTheFadeResumesTheOutgoingOneWhereTheOutputIs() async {
        let device = GatedCapturingDevice()
        device.gated.withLock { $0 = true }
        let (pipeline, recorder) = makePipeline(
            songs: [1: (0, 21, false), 2: (3000, 21, true), 3: (-5000, 5, true)], device: device,
            crossfade: CrossfadeSettings(seconds: 1))
        defer { pipeline.shutDown() }
        // 7 s before the end: 28 chunks, more than the 16 the buffer holds, so the decoder
        // reaches the fade only as the output plays, chunk by chunk.
        _ = pipeline.play(track(1), from: 14, paused: false)
        pipeline.enqueue(track(2))
        var played = 0
        // Let the output play until the decoder starts the fade, a chunk at a time and only
        // once the decoder has filled the buffer (it then waits for a batch of free chunks), so
        // that the output stays a buffer behind however slowly the decoder is scheduled. The
        // waits have no count: with the whole unit suite running on two cores a decoder turn
        // took over two seconds, and a permit given before the buffer was full let the output
        // catch up and take a mixed chunk.
        while pipeline.transport.withLock({ pipeline.transport.decoder.fadeStart == nil }) && played < 40 {
            let filled = await Self.waitUntil {
                pipeline.transport.withLock {
                    pipeline.transport.decoder.fadeStart != nil || !pipeline.transport.buffer.hasRoom
                        || pipeline.transport.decoder.held
                }
            }
            #expect(filled, "the decoder did not fill the buffer")
            device.permits.signal()
            played += 1
            let wrote = await Self.waitUntil { device.samples.withLock({ $0.count }) >= played * Self.chunkFrames }
            #expect(wrote, "the output did not play its chunk")
        }
        #expect(pipeline.transport.withLock { pipeline.transport.decoder.fadeStart != nil })
        pipeline.enqueue(track(3))
        device.gated.withLock { $0 = false }
        for _ in 0..<100 { device.permits.signal() }
        _ = await recorder.wait { !$0.isEmpty }
        pipeline.enqueue(nil)
        let events = await recorder.wait { $0.contains(.finished) }
        #expect(events.first == .started(track(3)))
        let samples = device.samples.withLock { $0 }
        let outgoing = TimedSource(first: 0, seconds: 21, constant: false).samples(from: 14)
        // The output was a buffer behind the decoder, so it had taken none of the mix: song 1
        // from 14 s to its end exactly as decoded (nothing lost, repeated or mixed), then song
        // 3 whole.
        #expect(sameSamples(Array(samples.prefix(outgoing.count)), outgoing) == nil)
        #expect(samples.count == outgoing.count + 5 * 8000)
        #expect(samples[outgoing.count...].allSatisfy { $0 == -5000 })
    }
}
