import Foundation
import Synchronization
import Testing

@testable import Playback

/// Pausing: `elapsed` stands still from the moment `setPaused(true)` returns, and nothing
/// waits for the output thread to get there.
extension DecodingPipelineTests {
    /// Once `setPaused(true)` returns, elapsed stands still: the chunk the output was writing
    /// when the pause came counts before the call returns, as MPD's pause waits for its
    /// outputs. (It used to be counted a moment later, so a client saw elapsed move while
    /// the player said `pause`.)
    @Test func elapsedStandsStillOncePauseReturns() async {
        let pipeline = DecodingPipeline(
            outputs: [.init(name: "slow", device: SlowDevice(), format: nil, softwareVolume: false)],
            bufferBytes: 64 * 1024,
            openSource: { _ in CountingSource(first: 0, frames: 1_000_000) })
        defer { pipeline.shutDown() }
        _ = pipeline.play(track(1), from: 0, paused: false)
        for _ in 0..<400 where pipeline.status.elapsed == 0 { try? await Task.sleep(for: .milliseconds(5)) }
        #expect(pipeline.status.elapsed > 0)
        pipeline.setPaused(true)
        let paused = pipeline.status.elapsed
        try? await Task.sleep(for: .milliseconds(100))
        #expect(pipeline.status.elapsed == paused)
        #expect(pipeline.status.state == .pause)
    }

    /// Plays a long song into a ``GatedDevice`` until its output thread is inside write
    /// number `writes` (counting from 1), with the writes before it let through; then runs
    /// `body`, and lets every write go and stops the pipeline.
    func holdingWrite(
        _ writes: Int, _ body: (DecodingPipeline, GatedDevice) async -> Void
    ) async {
        let device = GatedDevice()
        let pipeline = DecodingPipeline(
            outputs: [.init(name: "gated", device: device, format: nil, softwareVolume: false)],
            bufferBytes: 64 * 1024,
            openSource: { _ in CountingSource(first: 0, frames: 1_000_000) })
        _ = pipeline.play(track(1), from: 0, paused: false)
        for _ in 1..<writes { device.permits.signal() }
        await waitFor { device.entered.withLock { $0 } >= writes }
        await body(pipeline, device)
        for _ in 0..<1000 { device.permits.signal() }
        pipeline.shutDown()
    }

    /// Polls `condition` for up to five seconds: the threads may be slow to get there on a
    /// busy machine, and a test that gives up early fails for nothing.
    func waitFor(_ condition: () -> Bool) async {
        for _ in 0..<1000 where !condition() { try? await Task.sleep(for: .milliseconds(5)) }
    }

    /// Pausing does not wait for the output thread: the chunk the reference output is writing
    /// counts as heard at once, so `elapsed` stands still from the moment `setPaused(true)`
    /// returns even while that write is held up, and the write's return changes nothing.
    @Test func pauseCountsTheChunkBeingWrittenWithoutWaitingForIt() async {
        await holdingWrite(3) { pipeline, device in
            // Two chunks of 2.048 s played; the third is being written and stays so.
            pipeline.setPaused(true)
            #expect(pipeline.status.elapsed == 6.144)
            #expect(pipeline.playedSeconds == 6.144)
            device.permits.signal()
            await waitFor { device.written.withLock { $0 } >= 3 }
            #expect(pipeline.status.elapsed == 6.144)
            #expect(pipeline.playedSeconds == 6.144)
            #expect(pipeline.status.state == .pause)
        }
    }

    /// A pause right after a seek, while the output still writes a chunk from before it,
    /// keeps the seek's time: that chunk is not heard.
    @Test func aPauseRightAfterASeekDoesNotCountTheChunkFromBeforeIt() async {
        await holdingWrite(1) { pipeline, device in
            _ = pipeline.play(track(1), from: 30, paused: false)
            pipeline.setPaused(true)
            #expect(pipeline.status.elapsed == 30)
            device.permits.signal()
            await waitFor { device.written.withLock { $0 } >= 1 }
            #expect(pipeline.status.elapsed == 30)
            #expect(pipeline.playedSeconds == 0)
        }
    }

    /// A pipeline playing a song of 11 days into `device` (which takes a chunk of 2 s every
    /// 2 ms, so however slowly the test runs the song does not end), paused once `writes`
    /// says two writes were made.
    func pausedAfterTwoWrites(_ device: any AudioOutputDevice, writes: () -> Int) async -> DecodingPipeline {
        let pipeline = DecodingPipeline(
            outputs: [.init(name: device.name, device: device, format: nil, softwareVolume: false)],
            bufferBytes: 64 * 1024,
            openSource: { _ in CountingSource(first: 0, frames: 1_000_000_000) })
        _ = pipeline.play(track(1), from: 0, paused: false)
        await waitFor { writes() >= 2 }
        pipeline.setPaused(true)
        return pipeline
    }

    /// A device that cannot pause itself (the `pipe` output) is asked once per pause and then
    /// left alone: its thread waits for the pause to end. (It used to ask again and again, a
    /// busy loop on the real-time output thread for as long as the pause lasted.)
    @Test func aDeviceThatCannotPauseIsAskedOncePerPause() async {
        let device = UnpausableDevice()
        let pipeline = await pausedAfterTwoWrites(device) { device.writes.withLock { $0 } }
        defer { pipeline.shutDown() }
        await waitFor { device.pauses.withLock { $0 } >= 1 }
        try? await Task.sleep(for: .milliseconds(200))
        #expect(device.pauses.withLock { $0 } == 1)
        let writes = device.writes.withLock { $0 }
        pipeline.setPaused(false)
        await waitFor { device.writes.withLock { $0 } > writes }
        pipeline.setPaused(true)
        await waitFor { device.pauses.withLock { $0 } >= 2 }
        try? await Task.sleep(for: .milliseconds(100))
        #expect(device.pauses.withLock { $0 } == 2)
    }

    /// A device that streams while paused (the `httpd` output's silence) is called again each
    /// time it says it is due, not in a busy loop, and the wait between calls ends as soon as
    /// the pause does: with the device asking for ten seconds between calls, the song goes on
    /// at once.
    @Test func aDeviceThatStreamsWhilePausedIsCalledWhenItAsks() async {
        let device = SilenceStreamingDevice()
        let pipeline = await pausedAfterTwoWrites(device) { device.writes.withLock { $0 } }
        defer { pipeline.shutDown() }
        await waitFor { device.pauses.withLock { $0 } >= 3 }
        // Called again and again (every 20 ms it asks), and not thousands of times.
        let pauses = device.pauses.withLock { $0 }
        #expect(pauses >= 3 && pauses < 200, "\(pauses) pause calls")
        device.interval.withLock { $0 = 10 }
        let asked = device.pauses.withLock { $0 }
        await waitFor { device.pauses.withLock { $0 } > asked }
        let writes = device.writes.withLock { $0 }
        pipeline.setPaused(false)
        await waitFor { device.writes.withLock { $0 } > writes }
        #expect(device.writes.withLock { $0 } > writes, "the resume waited for the device's next pause call")
    }
}

/// A device that counts its writes and its pause calls, taking 2 ms a write; it cannot pause
/// itself (`pause()` is false), as the `pipe` output.
class UnpausableDevice: AudioOutputDevice, @unchecked Sendable {
    var name: String { "pipe" }
    var plugin: String { "pipe" }
    let pauses = Mutex(0)
    let writes = Mutex(0)
    func open(format: PCMFormat) throws(OutputError) -> PCMFormat { format }
    func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) -> Int {
        usleep(2000)
        writes.withLock { $0 += 1 }
        return bytes.count
    }
    func drain() {}
    func cancel() {}
    func pause() -> Bool {
        pauses.withLock { $0 += 1 }
        return false
    }
    /// Declared here so that a subclass's answer is the one the pipeline calls.
    func nextPauseCall() -> Double? { nil }
    func close() {}
}

/// A device like the `httpd` output: while paused it asks to be called every `interval`
/// seconds, and counts its calls.
final class SilenceStreamingDevice: UnpausableDevice, @unchecked Sendable {
    override var name: String { "httpd" }
    override var plugin: String { "httpd" }
    let interval = Mutex(0.02)
    let lastPause = Mutex(ContinuousClock.now)
    override func nextPauseCall() -> Double? {
        let due = lastPause.withLock { $0 } + .seconds(interval.withLock { $0 })
        let left = ContinuousClock.now.duration(to: due)
        return Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
    }
    override func pause() -> Bool {
        lastPause.withLock { $0 = ContinuousClock.now }
        _ = super.pause()
        return true
    }
}
