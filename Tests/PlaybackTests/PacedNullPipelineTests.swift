import Foundation
import Playback
import Synchronization
import TestSupport
import Testing

/// The null pipeline really plays by the clock: these tests wait for its events (with
/// generous limits) and never measure how long anything took.
@Suite struct PacedNullPipelineTests {
    /// Collects events and lets a test wait for a number of them.
    final class Recorder: Sendable {
        let events = Mutex<[PipelineEvent]>([])
        func record(_ event: PipelineEvent) { events.withLock { $0.append(event) } }
        func wait(for count: Int) async -> [PipelineEvent] {
            for _ in 0..<500 where events.withLock({ $0.count }) < count {
                try? await Task.sleep(for: .milliseconds(10))
            }
            return events.withLock { $0 }
        }
    }

    /// A real, readable file for the pipeline to "play".
    static let file: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tonearm-null-pipeline.flac").path
        _ = FileManager.default.createFile(atPath: path, contents: Data([0x66, 0x4C, 0x61, 0x43]))
        return path
    }()

    func track(_ token: Int, duration: Double) -> PipelineTrack {
        PipelineTrack(token: token, path: Self.file, duration: duration, audioFormat: "44100:16:2")
    }

    @Test func aQueuedTrackTakesOverThenPlaybackFinishes() async {
        let pipeline = PacedNullPipeline()
        let recorder = Recorder()
        pipeline.setEventHandler { _, event in recorder.record(event) }
        _ = pipeline.play(track(1, duration: 0.05), from: 0, paused: false)
        pipeline.enqueue(track(2, duration: 0.05))
        #expect(pipeline.status.state == .play)
        let events = await recorder.wait(for: 2)
        #expect(events == [.started(track(2, duration: 0.05)), .finished])
        #expect(pipeline.status.state == .stop)
    }

    @Test func borderPausePausesAtTheStartOfTheNextTrack() async {
        let pipeline = PacedNullPipeline()
        let recorder = Recorder()
        pipeline.setEventHandler { _, event in recorder.record(event) }
        pipeline.setBorderPause(true)
        _ = pipeline.play(track(1, duration: 0.05), from: 0, paused: false)
        pipeline.enqueue(track(2, duration: 10))
        let events = await recorder.wait(for: 2)
        #expect(events == [.started(track(2, duration: 10)), .borderPause])
        #expect(pipeline.status.state == .pause)
        #expect(pipeline.status.track?.token == 2)
        #expect(pipeline.status.elapsed == 0)
    }

    @Test func pausedTimeDoesNotCountAndSeekingStartsThere() {
        let pipeline = PacedNullPipeline()
        _ = pipeline.play(track(1, duration: 100), from: 42, paused: true)
        #expect(pipeline.status.elapsed == 42)
        #expect(pipeline.status.state == .pause)
        pipeline.setPaused(false)
        #expect(pipeline.status.elapsed >= 42)
        pipeline.stop()
        #expect(pipeline.status == PipelineStatus(state: .stop))
    }

    @Test func aMissingFileFailsAndEventsOfAnOldGenerationAreMarked() async {
        let pipeline = PacedNullPipeline()
        let generations = Mutex<[UInt64]>([])
        let recorder = Recorder()
        pipeline.setEventHandler { generation, event in
            generations.withLock { $0.append(generation) }
            recorder.record(event)
        }
        let missing = PipelineTrack(token: 9, path: "/nonexistent/tonearm.flac", duration: 1, audioFormat: nil)
        let first = pipeline.play(missing, from: 0, paused: false)
        let events = await recorder.wait(for: 1)
        #expect(events == [.failed("Failed to decode /nonexistent/tonearm.flac")])
        #expect(generations.withLock { $0 } == [first])
        let second = pipeline.play(track(1, duration: 100), from: 0, paused: false)
        #expect(second > first)
    }
}
