import Foundation
import Synchronization
import Testing

@testable import Playback

/// An output that comes back (`enableoutput`) reads on from the oldest chunk that not every
/// output has played, as MPD's outputs all read one pipe from its head.
extension DecodingPipelineTests {
    /// A pipeline of a 30,000-frame song (decoded whole into the buffer at once) with a gated
    /// output first, the reference, and a capturing one that takes every chunk at once.
    func gatedAndCapturing() -> (DecodingPipeline, GatedDevice, CapturingDevice) {
        let gated = GatedDevice()
        let capture = CapturingDevice()
        let pipeline = DecodingPipeline(
            outputs: [
                .init(name: "gated", device: gated, format: nil, softwareVolume: false),
                .init(name: "capture", device: capture, format: nil, softwareVolume: false),
            ],
            bufferBytes: 64 * 1024,
            openSource: { _ in CountingSource(first: 0, frames: 30_000) })
        return (pipeline, gated, capture)
    }

    /// Whether output `index`'s thread has let go of its reader and device.
    func released(_ pipeline: DecodingPipeline, _ index: Int) -> Bool {
        pipeline.transport.withLock { !pipeline.transport.outputs[index].holding }
    }

    /// The second output, enabled again while the first plays, starts where the first is, not
    /// where the decoder is (the end of the song here, seconds ahead): the two play in time.
    @Test func anOutputEnabledWhileAnotherPlaysJoinsItWhereItIs() async {
        let (pipeline, gated, capture) = gatedAndCapturing()
        defer {
            for _ in 0..<1000 { gated.permits.signal() }
            pipeline.shutDown()
        }
        _ = pipeline.play(track(1), from: 0, paused: false)
        for _ in 0..<3 { gated.permits.signal() }
        await waitFor { gated.entered.withLock { $0 } == 4 && capture.samples.withLock { $0.count } == 30_000 }
        #expect(capture.samples.withLock { $0.count } == 30_000)
        #expect(pipeline.setOutput(1, enabled: false) == true)
        await waitFor { released(pipeline, 1) }
        #expect(pipeline.setOutput(1, enabled: true) == true)
        await waitFor { capture.samples.withLock { $0.count } > 30_000 }
        // The gated output is inside its fourth write: it has played this much.
        let heard = gated.samples.withLock { $0.count }
        #expect(heard > 0 && heard < 30_000)
        let again = capture.samples.withLock { Array($0.dropFirst(30_000)) }
        #expect(sameSamples(again, (heard..<30_000).map { Int16($0) }) == nil)
    }

    /// The only output disabled during a pause and enabled again: the resume plays on from
    /// the paused chunk, every sample once, and `elapsed` goes on from where it stood.
    @Test func theOnlyOutputDisabledDuringAPauseResumesWhereItPaused() async {
        let gated = GatedDevice()
        let pipeline = DecodingPipeline(
            outputs: [.init(name: "gated", device: gated, format: nil, softwareVolume: false)],
            bufferBytes: 64 * 1024,
            openSource: { _ in CountingSource(first: 0, frames: 30_000) })
        defer {
            for _ in 0..<1000 { gated.permits.signal() }
            pipeline.shutDown()
        }
        _ = pipeline.play(track(1), from: 0, paused: false)
        for _ in 0..<2 { gated.permits.signal() }
        await waitFor { gated.entered.withLock { $0 } == 3 }
        pipeline.setPaused(true)
        let pausedAt = pipeline.status.elapsed
        gated.permits.signal()  // the write under way finishes; the pause holds the rest
        await waitFor { gated.written.withLock { $0 } == 3 }
        #expect(pipeline.setOutput(0, enabled: false) == true)
        await waitFor { released(pipeline, 0) }
        #expect(pipeline.setOutput(0, enabled: true) == true)
        pipeline.setPaused(false)
        #expect(pipeline.status.state == .play)
        for _ in 0..<1000 { gated.permits.signal() }
        await waitFor { gated.samples.withLock { $0.count } >= 30_000 }
        #expect(sameSamples(gated.samples.withLock { $0 }, (0..<30_000).map { Int16($0) }) == nil)
        #expect(pipeline.status.elapsed > pausedAt || pipeline.status.state == .stop)
    }
}
