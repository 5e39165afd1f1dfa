import Foundation
import Synchronization
import Testing

@testable import Playback

/// Two pipelines over one shared device, as two partitions have (`moveoutput`): the device
/// plays in the one that holds it, and only once the other has closed it.
@Suite struct OutputHandoverTests {
    func track(_ token: Int) -> PipelineTrack {
        PipelineTrack(token: token, path: "/song/\(token)", duration: nil, audioFormat: "1000:16:1")
    }

    func pipeline(_ device: CapturingDevice, attached: Bool, first: Int) -> (DecodingPipeline, EventRecorder) {
        let pipeline = DecodingPipeline(
            outputs: [.init(name: "shared", device: device, format: nil, softwareVolume: true)], attached: attached,
            bufferBytes: 64 * 1024,
            openSource: { _ in CountingSource(first: first, frames: 3000) })
        let recorder = EventRecorder()
        pipeline.setEventHandler { _, event in recorder.record(event) }
        return (pipeline, recorder)
    }

    @Test func aPipelineWithoutTheDeviceListsItAsAStandIn() {
        let device = CapturingDevice()
        let (home, _) = pipeline(device, attached: true, first: 0)
        let (other, _) = pipeline(device, attached: false, first: 50_000)
        defer {
            home.shutDown()
            other.shutDown()
        }
        #expect(home.outputStatuses.map(\.plugin) == ["test"])
        #expect(other.outputStatuses.map(\.plugin) == ["dummy"])
        #expect(other.outputStatuses.map(\.enabled) == [false])
        #expect(home.hasMixer && !other.hasMixer)
        #expect(other.detachOutput(0) == nil)
    }

    @Test func theDeviceMovesAndPlaysOnlyTheNewPipelinesSong() async {
        let device = CapturingDevice()
        let (home, homeEvents) = pipeline(device, attached: true, first: 0)
        let (other, otherEvents) = pipeline(device, attached: false, first: 50_000)
        defer {
            home.shutDown()
            other.shutDown()
        }

        _ = home.play(track(1), from: 0, paused: false)
        // Nothing follows: the stream ends after this song.
        home.enqueue(nil)
        #expect(await homeEvents.wait { $0.contains(.finished) } == [.finished])
        let heardAtHome = device.samples.withLock { $0 }
        #expect(sameSamples(heardAtHome, (0..<3000).map { Int16($0) }) == nil)

        #expect(home.detachOutput(0) == true)
        #expect(device.closes.withLock { $0 } >= 1)
        #expect(home.outputStatuses.map(\.plugin) == ["dummy"])
        other.attachOutput(0, enabled: true)
        #expect(other.outputStatuses.map(\.plugin) == ["test"])
        #expect(other.hasMixer && !home.hasMixer)

        // The home pipeline plays into nothing now; the device hears the other one's song.
        _ = home.play(track(2), from: 0, paused: false)
        _ = other.play(track(3), from: 0, paused: false)
        other.enqueue(nil)
        #expect(await otherEvents.wait { $0.contains(.finished) } == [.finished])
        let heard = device.samples.withLock { $0 }
        #expect(
            sameSamples(Array(heard.dropFirst(3000)), (50_000..<53_000).map { Int16(truncatingIfNeeded: $0) }) == nil)
    }

    @Test func aDisabledOutputMovesDisabled() {
        let device = CapturingDevice()
        let (home, _) = pipeline(device, attached: true, first: 0)
        let (other, _) = pipeline(device, attached: false, first: 0)
        defer {
            home.shutDown()
            other.shutDown()
        }
        #expect(home.setOutput(0, enabled: false) == true)
        #expect(home.detachOutput(0) == false)
        other.attachOutput(0, enabled: false)
        #expect(other.outputStatuses.map(\.enabled) == [false])
        #expect(other.holdsOutput(0) && !home.holdsOutput(0))
    }

    /// A partition without outputs pauses on `play` with MPD's error, and its decoder waits
    /// instead of decoding into the void: an output that arrives hears the song from its start.
    @Test func withoutAnOutputPlayPausesAndTheSongWaitsForOne() async {
        let device = CapturingDevice()
        let (other, events) = pipeline(device, attached: false, first: 7000)
        defer { other.shutDown() }
        _ = other.play(track(1), from: 0, paused: false)
        // The pause and its reason are there when `play` returns, before the event arrives.
        #expect(other.status.state == .pause)
        #expect(other.status.outputsFailure == "All audio outputs are disabled")
        other.enqueue(nil)
        #expect(await events.wait { !$0.isEmpty } == [.outputsFailed("All audio outputs are disabled")])
        #expect(other.status.state == .pause)
        other.attachOutput(0, enabled: true)
        other.setPaused(false)
        #expect(other.status.outputsFailure == nil)
        _ = await events.wait { $0.contains(.finished) }
        #expect(sameSamples(device.samples.withLock { $0 }, (7000..<10_000).map { Int16($0) }) == nil)
    }
}
