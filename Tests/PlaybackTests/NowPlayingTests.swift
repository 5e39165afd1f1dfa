import Testing

@testable import Playback

/// What `status` shows, driven by the events the controls and the reference output send.
@Suite struct NowPlayingTests {
    func track(_ token: Int) -> PipelineTrack {
        PipelineTrack(token: token, path: "/song/\(token)", duration: nil, audioFormat: nil)
    }

    @Test func playShowsTheSongAtItsOffsetAndStopShowsNothing() {
        var now = NowPlaying()
        #expect(now.status.state == .stop)
        now.play(track(1), from: 30, paused: false, generation: 1)
        #expect(now.status == PipelineStatus(state: .play, elapsed: 30, track: track(1)))
        now.stop(generation: 2)
        #expect(now.status.state == .stop && now.isStopped)
    }

    @Test func theReferenceOutputsWritesMoveTheClock() {
        var now = NowPlaying()
        now.play(track(1), from: 0, paused: false, generation: 1)
        now.willWrite(output: 0, generation: 1, end: 2, seconds: 2, bitrate: 320)
        now.didWrite(output: 0, generation: 1, heard: (0, 2, 320))
        #expect(now.status.elapsed == 2 && now.status.bitrate == 320 && now.played == 2)
        // A write of an older generation (before a seek) is not heard.
        now.play(track(1), from: 60, paused: false, generation: 2)
        now.didWrite(output: 0, generation: 1, heard: (2, 2, 320))
        #expect(now.status.elapsed == 60 && now.played == 2)
    }

    @Test func aPauseCountsTheChunkBeingWrittenOnce() {
        var now = NowPlaying()
        now.play(track(1), from: 0, paused: false, generation: 1)
        now.willWrite(output: 0, generation: 1, end: 2, seconds: 2, bitrate: 320)
        now.setPaused(true)
        #expect(now.status == PipelineStatus(state: .pause, elapsed: 2, bitrate: 320, track: track(1)))
        #expect(now.played == 2)
        // The write returns having played all of it: counted once, not twice.
        now.didWrite(output: 0, generation: 1, heard: (0, 2, 320))
        #expect(now.status.elapsed == 2 && now.played == 2)
        // Or, the next time, the device took only half of it: what it played counts.
        now.setPaused(false)
        now.willWrite(output: 0, generation: 1, end: 4, seconds: 2, bitrate: 320)
        now.setPaused(true)
        #expect(now.played == 4)
        now.didWrite(output: 0, generation: 1, heard: (2, 1, 320))
        #expect(now.status.elapsed == 3 && now.played == 3)
    }

    @Test func aPauseAfterASeekDoesNotCountTheChunkFromBeforeIt() {
        var now = NowPlaying()
        now.play(track(1), from: 0, paused: false, generation: 1)
        now.willWrite(output: 0, generation: 1, end: 2, seconds: 2, bitrate: 320)
        now.play(track(1), from: 30, paused: false, generation: 2)
        now.setPaused(true)
        #expect(now.status.elapsed == 30 && now.played == 0)
    }

    @Test func noOutputPausesWithTheReasonUntilResumed() {
        var now = NowPlaying()
        now.play(track(1), from: 0, paused: false, generation: 1)
        now.pauseForOutputs("All audio outputs are disabled")
        #expect(now.status.state == .pause)
        #expect(now.status.outputsFailure == "All audio outputs are disabled")
        now.setPaused(false)
        #expect(now.status.outputsFailure == nil)
    }

    @Test func onlyTheStartedSongAndTheQueuedOneCanStillBeReported() {
        var now = NowPlaying()
        now.play(track(1), from: 0, paused: false, generation: 1)
        now.enqueue(track(2))
        now.songStarted(2, at: 0)
        now.enqueue(track(3))
        now.forgetTracks(before: 2)
        #expect(now.track(1) == nil && now.track(2) == track(2) && now.track(3) == track(3))
        #expect(now.status.track == track(2))
        now.finished()
        #expect(now.status.state == .stop)
    }
}
