import Testing

@testable import Playback

/// The decoder's state machine, driven by hand: events in, steps out, no thread.
@Suite struct DecoderSchedulerTests {
    func track(_ token: Int) -> PipelineTrack {
        PipelineTrack(token: token, path: "/song/\(token)", duration: nil, audioFormat: nil)
    }

    /// A buffer of 16 chunks with one reader (an output), and a scheduler for it.
    func make() -> (DecoderScheduler, PCMBuffer, Int) {
        let buffer = PCMBuffer(totalBytes: 16 * 4096)
        let reader = buffer.addReader()!
        return (DecoderScheduler(bufferCapacity: buffer.capacity), buffer, reader)
    }

    func step(
        _ scheduler: inout DecoderScheduler, _ buffer: PCMBuffer, source: Bool = true, borderPause: Bool = false,
        crossfade: Bool = false
    ) -> DecoderScheduler.Step {
        scheduler.nextStep(
            hasSource: source, shutdown: false, borderPause: borderPause, crossfadeEnabled: crossfade, buffer: buffer)
    }

    func commit(_ buffer: PCMBuffer, token: Int, time: Double = 0) {
        buffer.commit(ChunkInfo(token: token, time: time, length: 4096, format: .cd, bitrate: 0, isEnd: false))
    }

    @Test func playOpensTheSongAndOnlyTheFirstPlayAfterAStopRestartsTheGainDither() {
        var (scheduler, buffer, _) = make()
        #expect(step(&scheduler, buffer, source: false) == .wait)
        scheduler.play(track(1), offset: 12)
        #expect(step(&scheduler, buffer, source: false) == .open(track(1), offset: 12, freshGain: true))
        scheduler.play(track(1), offset: 30)
        #expect(step(&scheduler, buffer, source: true) == .open(track(1), offset: 30, freshGain: false))
        scheduler.stop()
        #expect(step(&scheduler, buffer, source: true) == .close)
        #expect(step(&scheduler, buffer, source: false) == .wait)
        scheduler.play(track(2), offset: 0)
        #expect(step(&scheduler, buffer, source: false) == .open(track(2), offset: 0, freshGain: true))
    }

    @Test func itDecodesWhileThereIsRoomAndTellsWhatMayFadeIn() {
        var (scheduler, buffer, _) = make()
        scheduler.play(track(1), offset: 0)
        _ = step(&scheduler, buffer, source: false)
        #expect(step(&scheduler, buffer) == .decode(index: 0, upcoming: nil, awaitingNext: true))
        scheduler.enqueue(track(2), buffer: buffer)
        #expect(step(&scheduler, buffer) == .decode(index: 0, upcoming: track(2), awaitingNext: false))
        // A border pause (single mode) fades into nothing.
        #expect(step(&scheduler, buffer, borderPause: true) == .decode(index: 0, upcoming: nil, awaitingNext: false))
        #expect(
            scheduler.nextStep(
                hasSource: true, shutdown: true, borderPause: false, crossfadeEnabled: false, buffer: buffer) == .quit)
    }

    @Test func aFullBufferHoldsTheDecoderUntilABatchIsFree() {
        var (scheduler, buffer, reader) = make()
        scheduler.play(track(1), offset: 0)
        _ = step(&scheduler, buffer, source: false)
        for _ in 0..<16 { commit(buffer, token: 1) }
        #expect(step(&scheduler, buffer) == .wait)
        #expect(scheduler.held)
        // Only room wakes it, and only a batch of two chunks (an eighth of 16).
        #expect(!scheduler.wantsRoomWakeUp(buffer))
        buffer.release(reader: reader)
        #expect(!scheduler.wantsRoomWakeUp(buffer))
        #expect(step(&scheduler, buffer) == .wait)
        buffer.release(reader: reader)
        #expect(scheduler.wantsRoomWakeUp(buffer))
        #expect(step(&scheduler, buffer) == .decode(index: 16, upcoming: nil, awaitingNext: true))
        #expect(!scheduler.held)
    }

    @Test func atTheEndItGoesOnIntoTheNextSongOrEndsTheStream() {
        var (scheduler, buffer, _) = make()
        scheduler.play(track(1), offset: 0)
        _ = step(&scheduler, buffer, source: false)
        scheduler.songEnded()
        // The player has not said what follows: wait.
        #expect(step(&scheduler, buffer, source: false) == .wait)
        scheduler.enqueue(track(2), buffer: buffer)
        #expect(step(&scheduler, buffer, source: false) == .openNext(track(2)))
        scheduler.enteredNext(2, at: 0)
        #expect(scheduler.border == .init(index: 0, token: 2))
        scheduler.songEnded()
        scheduler.enqueue(nil, buffer: buffer)
        // Song 2's border is not reached yet: nothing ends before the outputs get there.
        #expect(step(&scheduler, buffer, source: false) == .wait)
        scheduler.reachedSong(2)
        #expect(step(&scheduler, buffer, source: false) == .end)
    }

    @Test func aNextSongThatCannotOpenEndsTheStreamThere() {
        var (scheduler, buffer, _) = make()
        scheduler.play(track(1), offset: 0)
        _ = step(&scheduler, buffer, source: false)
        scheduler.songEnded()
        scheduler.enqueue(track(2), buffer: buffer)
        #expect(step(&scheduler, buffer, source: false) == .openNext(track(2)))
        scheduler.nextFailed()
        #expect(step(&scheduler, buffer, source: false) == .end)
    }

    /// A stream that does not answer would hold the decoder for its whole timeout: a change of
    /// the next song while it opens asks for the open to be interrupted, and the new next song
    /// is opened instead; the same song named again, or a change once the open is over, asks
    /// for nothing.
    @Test func changingTheNextSongWhileItOpensInterruptsTheOpen() {
        var (scheduler, buffer, _) = make()
        scheduler.play(track(1), offset: 0)
        _ = step(&scheduler, buffer, source: false)
        scheduler.songEnded()
        var interrupts = scheduler.enqueue(track(2), buffer: buffer)
        #expect(!interrupts)
        #expect(step(&scheduler, buffer, source: false) == .openNext(track(2)))
        interrupts = scheduler.enqueue(track(2), buffer: buffer)
        #expect(!interrupts)
        interrupts = scheduler.enqueue(track(3), buffer: buffer)
        #expect(interrupts)
        // The open of 2 ends (interrupted, or done): 3 is opened instead, and 2 does not end
        // the stream.
        var changed = scheduler.nextChanged(whileOpening: 2)
        #expect(changed)
        #expect(step(&scheduler, buffer, source: false) == .openNext(track(3)))
        changed = scheduler.nextChanged(whileOpening: 3)
        #expect(!changed)
        scheduler.enteredNext(3, at: 0)
        scheduler.reachedSong(3)
        interrupts = scheduler.enqueue(track(4), buffer: buffer)
        #expect(!interrupts)
        // With nothing left to follow, the stream ends where the interrupted open would have.
        scheduler.songEnded()
        #expect(step(&scheduler, buffer, source: false) == .openNext(track(4)))
        interrupts = scheduler.enqueue(nil, buffer: buffer)
        #expect(interrupts)
        changed = scheduler.nextChanged(whileOpening: 4)
        #expect(changed)
        #expect(step(&scheduler, buffer, source: false) == .end)
    }

    @Test func changingTheNextSongTakesBackWhatNoOutputReached() {
        var (scheduler, buffer, reader) = make()
        scheduler.play(track(1), offset: 0)
        _ = step(&scheduler, buffer, source: false)
        for _ in 0..<3 { commit(buffer, token: 1) }
        scheduler.songEnded()
        scheduler.enqueue(track(2), buffer: buffer)
        _ = step(&scheduler, buffer, source: false)
        scheduler.enteredNext(2, at: 3)
        for _ in 0..<2 { commit(buffer, token: 2) }
        scheduler.enqueue(track(3), buffer: buffer)
        #expect(buffer.written == 3)
        #expect(step(&scheduler, buffer, source: false) == .openNext(track(3)))
        // Once the output reads the new song's first chunk, it stays.
        scheduler.enteredNext(3, at: 3)
        commit(buffer, token: 3)
        for _ in 0..<3 { buffer.release(reader: reader) }
        scheduler.enqueue(track(4), buffer: buffer)
        #expect(buffer.written == 4)
        #expect(scheduler.border == .init(index: 3, token: 3))
    }

    @Test func anUndoneFadeGoesBackToTheOutgoingSongWhereTheOutputIs() {
        var (scheduler, buffer, reader) = make()
        scheduler.play(track(1), offset: 0)
        _ = step(&scheduler, buffer, source: false)
        for index in 0..<4 { commit(buffer, token: 1, time: Double(index)) }
        scheduler.enqueue(track(2), buffer: buffer)
        let began = scheduler.beginFade(at: 4, outgoing: track(1), time: 4, incoming: 2)
        #expect(began)
        #expect(scheduler.isFading(from: 1))
        for index in 4..<8 { commit(buffer, token: 1, time: Double(index)) }
        // The output reads chunk 5; chunks 6 and 7 are taken back and song 1 resumes at 6 s.
        for _ in 0..<5 { buffer.release(reader: reader) }
        scheduler.enqueue(track(3), buffer: buffer)
        #expect(buffer.written == 6)
        #expect(!scheduler.isFading(from: 1))
        #expect(step(&scheduler, buffer, source: false) == .resume(track(1), offset: 6))
    }

    @Test func aFadeStartsOnlyIntoTheSongThatIsStillNext() {
        var (scheduler, buffer, _) = make()
        scheduler.play(track(1), offset: 0)
        _ = step(&scheduler, buffer, source: false)
        scheduler.enqueue(track(2), buffer: buffer)
        let intoAnother = scheduler.beginFade(at: 0, outgoing: track(1), time: 0, incoming: 3)
        #expect(!intoAnother)
        let intoTheNext = scheduler.beginFade(at: 0, outgoing: track(1), time: 0, incoming: 2)
        #expect(intoTheNext)
        scheduler.fadeBrokeOff(track(2))
        #expect(scheduler.border == nil)
        #expect(step(&scheduler, buffer) == .decode(index: 0, upcoming: track(2), awaitingNext: false))
    }

    @Test func nearTheEndOfAFadingSongItWaitsToHearWhatFollows() {
        var (scheduler, buffer, _) = make()
        scheduler.play(track(1), offset: 0)
        _ = step(&scheduler, buffer, source: false)
        scheduler.awaitNextForFade()
        #expect(step(&scheduler, buffer, crossfade: true) == .wait)
        // Crossfade switched off meanwhile: nothing to wait for.
        #expect(step(&scheduler, buffer, crossfade: false) == .decode(index: 0, upcoming: nil, awaitingNext: true))
        scheduler.awaitNextForFade()
        scheduler.enqueue(track(2), buffer: buffer)
        #expect(step(&scheduler, buffer, crossfade: true) == .decode(index: 0, upcoming: track(2), awaitingNext: false))
    }
}
