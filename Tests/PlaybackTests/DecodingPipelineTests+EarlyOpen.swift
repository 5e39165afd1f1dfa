import Foundation
import Synchronization
import Testing

@testable import Playback

/// A closed output opens in the format the database names for the song while the decoder is
/// still opening its file, rather than once the first chunk is decoded.
extension DecodingPipelineTests {
    /// Plays a song of `stored` format in `file` on a pipeline with one capturing output whose
    /// songs open (as FFmpeg opens a file) only once `opening` is signalled, then give 3,000
    /// counting frames of 1000:16:1; returns once the device has opened.
    func playHeld(_ stored: String, _ file: String) async -> (DecodingPipeline, CapturingDevice, DispatchSemaphore) {
        let device = CapturingDevice()
        let opening = DispatchSemaphore(value: 0)
        let pipeline = DecodingPipeline(
            outputs: [.init(name: "capture", device: device, format: nil, softwareVolume: false)],
            bufferBytes: 64 * 1024,
            openSource: { _ in
                opening.wait()
                return CountingSource(first: 0, frames: 3000)
            })
        _ = pipeline.play(
            PipelineTrack(token: 1, path: "/music/\(file)", duration: nil, audioFormat: stored), from: 0, paused: false)
        await waitFor { !device.opened.withLock { $0 }.isEmpty }
        return (pipeline, device, opening)
    }

    @Test func aClosedOutputOpensWhileTheSongIsOpening() async {
        let (pipeline, device, opening) = await playHeld("1000:16:1", "song.flac")
        defer {
            opening.signal()
            pipeline.shutDown()
        }
        #expect(device.opened.withLock { $0 } == [PCMFormat(sampleRate: 1000, sample: .s16, channels: 1)])
        opening.signal()
        await waitFor { device.samples.withLock { $0.count } == 3000 }
        // The first chunk found the device open in its format.
        #expect(device.opened.withLock { $0.count } == 1)
        #expect(device.closes.withLock { $0 } == 0)
        #expect(sameSamples(device.samples.withLock { $0 }, counting(0, 3000)) == nil)
    }

    /// A guess that the file belies costs a second opening, and nothing is lost.
    @Test func aWrongGuessOpensTheDeviceAgainInTheRealFormat() async {
        let (pipeline, device, opening) = await playHeld("1000:24:1", "song.mp3")
        defer { pipeline.shutDown() }
        opening.signal()
        await waitFor { device.samples.withLock { $0.count } == 3000 }
        #expect(
            device.opened.withLock { $0 } == [
                PCMFormat(sampleRate: 1000, sample: .float, channels: 1),
                PCMFormat(sampleRate: 1000, sample: .s16, channels: 1),
            ])
        #expect(device.closes.withLock { $0 } == 1)
        #expect(sameSamples(device.samples.withLock { $0 }, counting(0, 3000)) == nil)
    }

    /// `stop` before the song gave a chunk closes the device opened for it.
    @Test func aStopBeforeTheFirstChunkClosesTheOpenedDevice() async {
        let (pipeline, device, opening) = await playHeld("1000:16:1", "song.flac")
        defer {
            opening.signal()
            pipeline.shutDown()
        }
        #expect(!device.opened.withLock { $0 }.isEmpty)
        pipeline.stop()
        await waitFor { device.closes.withLock { $0 } == 1 }
        #expect(device.closes.withLock { $0 } == 1)
        #expect(device.samples.withLock { $0 }.isEmpty)
    }
}
