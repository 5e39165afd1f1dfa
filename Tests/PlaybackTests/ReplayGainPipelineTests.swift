import Foundation
import Settings
import Synchronization
import Testing

@testable import Playback

/// Replay gain in the decoding pipeline: each song is scaled by its own factor as it is
/// decoded, across a gapless border too, with one dither state running through the stream.
@Suite struct ReplayGainPipelineTests {
    static let format = PCMFormat(sampleRate: 1000, sample: .s16, channels: 1)

    /// Songs by token (token N counts from N × 100 000 for `frames[N]` frames) with the
    /// replay gain values in `gains`.
    func makePipeline(
        frames: [Int: Int], gains: [Int: ReplayGainInfo], settings: ReplayGainSettings, device: CapturingDevice
    ) -> (DecodingPipeline, EventRecorder) {
        let pipeline = DecodingPipeline(
            outputs: [.init(name: "capture", device: device, format: nil, softwareVolume: false)],
            bufferBytes: 64 * 1024,
            replayGain: settings,
            openSource: { track in
                guard let count = frames[track.token] else { throw CocoaError(.fileNoSuchFile) }
                return CountingSource(first: track.token * 100_000, frames: count, replayGain: gains[track.token])
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

    /// The songs' samples scaled one after the other by one volume stage, as MPD's replay
    /// gain filter scales a stream whose songs have these factors.
    func expected(_ songs: [(samples: [Int16], factor: Int)]) -> [Int16] {
        var stage = SoftwareVolume()
        var result: [Int16] = []
        for song in songs {
            var samples = song.samples
            samples.withUnsafeMutableBytes { stage.apply(factor: song.factor, to: $0, sample: .s16) }
            result += samples
        }
        return result
    }

    /// Plays `tokens` gaplessly to the end; returns what the output got.
    func playThrough(_ pipeline: DecodingPipeline, _ recorder: EventRecorder, _ tokens: [Int], device: CapturingDevice)
        async -> [Int16]
    {
        _ = pipeline.play(track(tokens[0]), from: 0, paused: false)
        for (index, token) in tokens.enumerated().dropFirst() {
            pipeline.enqueue(track(token))
            _ = await recorder.wait { $0.filter { if case .started = $0 { true } else { false } }.count == index }
        }
        pipeline.enqueue(nil)
        _ = await recorder.wait { $0.contains(.finished) }
        return device.samples.withLock { $0 }
    }

    @Test func eachSongPlaysAtItsOwnGainAcrossTheGaplessBorder() async {
        let device = CapturingDevice()
        // Song 1: −6 dB (513/1024). Song 2: +3 dB limited by its peak 0.9 (1/0.9 → 1138).
        // Song 3: no tags, so the missing preamp of −12 dB (257).
        let gains = [1: ReplayGainInfo(trackGain: -6), 2: ReplayGainInfo(trackGain: 3, trackPeak: 0.9)]
        let settings = ReplayGainSettings(mode: .track, missingPreamp: -12)
        #expect([gains[1], gains[2], nil].map(settings.factor(for:)) == [513, 1138, 257])
        let (pipeline, recorder) = makePipeline(
            frames: [1: 3000, 2: 2500, 3: 2000], gains: gains, settings: settings, device: device)
        defer { pipeline.shutDown() }
        let played = await playThrough(pipeline, recorder, [1, 2, 3], device: device)
        let wanted = expected([(counting(1, 3000), 513), (counting(2, 2500), 1138), (counting(3, 2000), 257)])
        #expect(sameSamples(played, wanted) == nil)
    }

    @Test func offPlaysTheSamplesAsDecodedAndTheModeCanBeSwitchedOn() async {
        let device = CapturingDevice()
        let gains = [1: ReplayGainInfo(trackGain: -6, albumGain: -12)]
        let (pipeline, recorder) = makePipeline(
            frames: [1: 2000], gains: gains, settings: ReplayGainSettings(), device: device)
        defer { pipeline.shutDown() }
        #expect(sameSamples(await playThrough(pipeline, recorder, [1], device: device), counting(1, 2000)) == nil)

        pipeline.stop()
        device.samples.withLock { $0.removeAll() }
        recorder.events.withLock { $0.removeAll() }
        pipeline.setReplayGainMode(.album)
        let played = await playThrough(pipeline, recorder, [1], device: device)
        #expect(sameSamples(played, expected([(counting(1, 2000), 257)])) == nil)
    }

    @Test func theDitherStartsAfreshAfterStop() async {
        let device = CapturingDevice()
        let gains = [1: ReplayGainInfo(trackGain: -6)]
        let (pipeline, recorder) = makePipeline(
            frames: [1: 1500], gains: gains, settings: ReplayGainSettings(mode: .track), device: device)
        defer { pipeline.shutDown() }
        let first = await playThrough(pipeline, recorder, [1], device: device)
        pipeline.stop()
        device.samples.withLock { $0.removeAll() }
        recorder.events.withLock { $0.removeAll() }
        let second = await playThrough(pipeline, recorder, [1], device: device)
        // Like MPD, whose outputs close on stop: the same song gives the same samples again.
        #expect(sameSamples(first, expected([(counting(1, 1500), 513)])) == nil)
        #expect(sameSamples(second, first) == nil)
    }
}
