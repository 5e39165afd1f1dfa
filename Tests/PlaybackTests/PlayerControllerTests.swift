import MPDProtocol
import MediaLibrary
import MusicModel
import Settings
import Synchronization
import Testing

@testable import Playback

/// A pipeline the test drives by hand: it records what the controller asks and sends the
/// events a real pipeline would send at a song's end.
final class ScriptedPipeline: AudioPipeline {
    struct State {
        var generation: UInt64 = 0
        var track: PipelineTrack?
        var next: PipelineTrack?
        var paused = false
        var outputsFailure: String?
        var borderPause = false
        var volume = 100
        var replayGainModes: [ReplayGainMode] = []
        var plays: [(token: Int, offset: Double)] = []
        var played = 0.0
        var handler: (@Sendable (UInt64, PipelineEvent) -> Void)?
    }
    let state = Mutex(State())

    func setEventHandler(_ handler: @escaping @Sendable (UInt64, PipelineEvent) -> Void) {
        state.withLock { $0.handler = handler }
    }
    func play(_ track: PipelineTrack, from offset: Double, paused: Bool) -> UInt64 {
        state.withLock {
            $0.generation += 1
            $0.track = track
            $0.next = nil
            $0.paused = paused
            $0.plays.append((track.token, offset))
            return $0.generation
        }
    }
    func enqueue(_ track: PipelineTrack?) { state.withLock { $0.next = track } }
    func setPaused(_ paused: Bool) { state.withLock { $0.paused = paused } }
    func setBorderPause(_ enabled: Bool) { state.withLock { $0.borderPause = enabled } }
    func setVolume(_ level: Int) { state.withLock { $0.volume = level } }
    func setReplayGainMode(_ mode: ReplayGainMode) { state.withLock { $0.replayGainModes.append(mode) } }
    func setCrossfade(_ settings: CrossfadeSettings) {}
    func stop() {
        state.withLock {
            $0.generation += 1
            $0.track = nil
            $0.next = nil
        }
    }
    var status: PipelineStatus {
        state.withLock { s in
            guard let track = s.track else { return PipelineStatus(state: .stop) }
            return PipelineStatus(
                state: s.paused ? .pause : .play, elapsed: 1.5, track: track, outputsFailure: s.outputsFailure)
        }
    }
    var playedSeconds: Double { state.withLock { $0.played } }

    /// Time passes while the track plays: the count of seconds played goes up.
    func advance(_ seconds: Double) { state.withLock { $0.played += seconds } }

    /// The current track reaches its end, as the real pipeline would report it.
    func endTrack() {
        let (handler, generation, events): ((@Sendable (UInt64, PipelineEvent) -> Void)?, UInt64, [PipelineEvent]) =
            state.withLock { s in
                guard let next = s.next else {
                    s.track = nil
                    return (s.handler, s.generation, [.finished])
                }
                s.track = next
                s.next = nil
                s.paused = s.borderPause
                return (s.handler, s.generation, s.borderPause ? [.started(next), .borderPause] : [.started(next)])
            }
        for event in events { handler?(generation, event) }
    }

    /// The current track reaches its end and the queued one takes over (or, with none queued,
    /// the pipeline runs out), as at `endTrack()`, but the event (`.started`, `.finished`) is
    /// still on its way: it goes out when the returned closure is called.
    func moveOnBeforeTelling() -> () -> Void {
        let (handler, generation, event) = state.withLock { s in
            let next = s.next
            s.track = next
            s.next = nil
            return (s.handler, s.generation, next.map(PipelineEvent.started) ?? .finished)
        }
        return { handler?(generation, event) }
    }

    var queuedToken: Int? { state.withLock { $0.next?.token } }
    var playingToken: Int? { state.withLock { $0.track?.token } }
}

/// Collects idle events.
final class EventLog: Sendable {
    private let events = Mutex<IdleSubsystems>([])
    func record(_ new: IdleSubsystems) { events.withLock { $0.formUnion(new) } }
    func take() -> IdleSubsystems {
        events.withLock {
            let all = $0
            $0 = []
            return all
        }
    }
}

func makePlayer(songs: Int, mixer: Bool = false) -> (PlayerController, ScriptedPipeline, EventLog) {
    let pipeline = ScriptedPipeline()
    let log = EventLog()
    let player = PlayerController(
        maximumLength: 50, pipeline: pipeline, hasMixer: mixer, seed: 3,
        path: { "/music/" + $0 }, notify: { log.record($0) })
    if songs > 0 { try! player.add((0..<songs).map { song($0) }) }
    _ = log.take()
    return (player, pipeline, log)
}

@Suite struct PlayerControllerTests {
    @Test func playQueuesTheNextSongAndFollowsTheBorder() throws {
        let (player, pipeline, log) = makePlayer(songs: 3)
        try player.play(position: nil)
        #expect(pipeline.playingToken == 1)
        #expect(pipeline.queuedToken == 2)
        #expect(player.status.state == .play)
        #expect(player.status.next?.id == 2)
        #expect(log.take().contains(.player))
        pipeline.endTrack()
        #expect(player.status.current?.position == 1)
        #expect(pipeline.queuedToken == 3)
        pipeline.endTrack()
        #expect(pipeline.queuedToken == nil)
        pipeline.endTrack()
        // The end of the queue: stopped, and no current song any more.
        #expect(player.status.state == .stop)
        #expect(player.status.current == nil)
    }

    @Test func consumeRemovesEachPlayedSong() throws {
        let (player, pipeline, log) = makePlayer(songs: 3)
        player.setConsume(.on)
        try player.play(position: 0)
        _ = log.take()
        pipeline.endTrack()
        #expect(player.queue.entries.map(\.id) == [2, 3])
        #expect(player.status.current?.position == 0)
        #expect(log.take().isSuperset(of: [.player, .playlist]))
    }

    @Test func consumeOneshotSwitchesItselfOff() throws {
        let (player, pipeline, log) = makePlayer(songs: 3)
        player.setConsume(.oneshot)
        try player.play(position: 0)
        _ = log.take()
        pipeline.endTrack()
        #expect(player.queue.count == 2)
        #expect(player.status.consume == .off)
        #expect(log.take().contains(.options))
        pipeline.endTrack()
        #expect(player.queue.count == 2)
    }

    @Test func singlePausesAtTheBorderAndOneshotResets() throws {
        let (player, pipeline, _) = makePlayer(songs: 3)
        player.setSingle(.oneshot)
        try player.play(position: 0)
        pipeline.endTrack()
        #expect(player.status.state == .pause)
        #expect(player.status.current?.position == 1)
        #expect(player.status.single == .off)
    }

    @Test func repeatWithSingleRepeatsTheSong() throws {
        let (player, pipeline, _) = makePlayer(songs: 3)
        player.setRepeat(true)
        player.setSingle(.on)
        try player.play(position: 1)
        #expect(pipeline.queuedToken == 2)
        #expect(player.status.next?.position == 1)
        pipeline.endTrack()
        #expect(player.status.current?.position == 1)
        #expect(player.status.state == .play)
    }

    @Test func repeatWrapsAround() throws {
        let (player, pipeline, _) = makePlayer(songs: 2)
        player.setRepeat(true)
        try player.play(position: 1)
        #expect(pipeline.queuedToken == 1)
        #expect(player.status.next?.position == 0)
    }

    @Test func nextIgnoresSingleAndStopsAtTheEnd() throws {
        let (player, _, _) = makePlayer(songs: 2)
        player.setSingle(.on)
        try player.play(position: 0)
        try player.next()
        #expect(player.status.current?.position == 1)
        try player.next()
        #expect(player.status.state == .stop)
        #expect(player.status.current == nil)
        #expect(throws: PlayerError.notPlaying) { try player.next() }
    }

    @Test func previousRestartsTheFirstSongOrWrapsWithRepeat() throws {
        let (player, pipeline, _) = makePlayer(songs: 3)
        try player.play(position: 0)
        try player.previous()
        #expect(player.status.current?.position == 0)
        #expect(pipeline.state.withLock { $0.plays.count } == 2)
        player.setRepeat(true)
        try player.previous()
        #expect(player.status.current?.position == 2)
    }

    @Test func deletingThePlayingSongPlaysTheNext() throws {
        let (player, pipeline, _) = makePlayer(songs: 3)
        try player.play(position: 1)
        try player.delete(id: 2)
        #expect(pipeline.playingToken == 3)
        #expect(player.status.current?.position == 1)
        #expect(player.status.state == .play)
        player.pause(true)
        try player.delete(id: 3)
        #expect(player.status.state == .stop)
    }

    @Test func movingKeepsTheCurrentSong() throws {
        let (player, _, _) = makePlayer(songs: 4)
        try player.play(position: 1)
        try player.move(0..<1, to: 3)
        #expect(player.status.current?.id == 2)
        #expect(player.status.current?.position == 0)
        try player.swap(0, 3)
        #expect(player.status.current?.position == 3)
        #expect(player.status.current?.id == 2)
    }

    @Test func randomPutsThePlayingSongFirstInTheOrder() throws {
        let (player, _, _) = makePlayer(songs: 6)
        try player.play(position: 4)
        player.setRandom(true)
        #expect(player.status.current?.position == 4)
        #expect(player.queue.order.first == 4)
        player.setRandom(false)
        #expect(player.queue.order == Array(0..<6))
        #expect(player.status.current?.position == 4)
    }

    @Test func playedSongsLoseTheirPriority() throws {
        let (player, _, _) = makePlayer(songs: 3)
        try player.setPriority(9, ids: [2])
        #expect(player.queue.entries[1].priority == 9)
        try player.play(id: 2)
        #expect(player.queue.entries[1].priority == 0)
    }

    @Test func aFullQueueRefusesMore() {
        let pipeline = ScriptedPipeline()
        let player = PlayerController(
            maximumLength: 2, pipeline: pipeline, hasMixer: false,
            path: { $0 }, notify: { _ in })
        #expect(throws: QueueError.tooLarge) {
            try player.add([song(0), song(1), song(2)])
        }
        // What fitted stays, as in MPD.
        #expect(player.queue.count == 2)
    }

    /// A position outside the queue is a bad index, an id that names no entry a missing song:
    /// the commands that take one or the other answer differently.
    @Test func positionsAndIDsFailInTheirOwnWords() throws {
        let (player, _, _) = makePlayer(songs: 2)
        #expect(throws: QueueError.badSongIndex) { try player.play(position: 2) }
        #expect(throws: QueueError.badSongIndex) { try player.seek(position: 5, to: 0) }
        #expect(throws: QueueError.badSongIndex) { try player.swap(0, 2) }
        #expect(throws: QueueError.badSongIndex) { try player.move(1..<2, to: 2) }
        #expect(throws: QueueError.badSongIndex) { try player.delete(range: RangeArgument(start: 3, end: nil)) }
        #expect(throws: QueueError.noSuchSong) { try player.play(id: 9) }
        #expect(throws: QueueError.noSuchSong) { try player.seek(id: 9, to: 0) }
        #expect(throws: QueueError.noSuchSong) { try player.delete(id: 9) }
        #expect(throws: QueueError.noSuchSong) { try player.swap(id: 1, id: 9) }
        #expect(throws: QueueError.noSuchSong) { try player.setPriority(1, ids: [9]) }
        #expect(throws: PlayerError.notPlaying) { try player.previous() }
        #expect(throws: PlayerError.notPlaying) { try player.seekCurrent(1, relative: false) }
    }

    @Test func rangesAreRefusedForThePlayingSongAndPastTheEnd() throws {
        let (player, _, _) = makePlayer(songs: 3)
        try player.play(position: 0)
        #expect(throws: QueueError.cannotEditCurrentSong) { try player.setRange(id: 1, SongTimeRange(start: 1)) }
        // The songs last 10 seconds.
        #expect(throws: QueueError.startPastSongEnd) { try player.setRange(id: 3, SongTimeRange(start: 11)) }
        try player.setRange(id: 3, SongTimeRange(start: 10))
    }

    @Test func volumeNeedsAMixer() throws {
        let (player, _, log) = makePlayer(songs: 0)
        #expect(throws: MixerError.noMixer) { try player.setVolume { $0 + 5 } }
        let (mixed, _, mixedLog) = makePlayer(songs: 0, mixer: true)
        try mixed.setVolume { $0 - 30 }
        #expect(mixed.volume == 70)
        #expect(mixedLog.take() == .mixer)
        try mixed.setVolume { _ in 70 }
        #expect(mixedLog.take().isEmpty)
        #expect(log.take().isEmpty)
    }

    /// The pipeline gets the mode in effect: `auto` is album, or track while random is on,
    /// and follows every change of either; the player still reports the mode as set.
    @Test func replayGainAutoFollowsRandom() {
        let pipeline = ScriptedPipeline()
        let log = EventLog()
        let player = PlayerController(
            maximumLength: 50, pipeline: pipeline, hasMixer: false, replayGainMode: .auto,
            seed: 3, path: { $0 }, notify: { log.record($0) })
        #expect(player.replayGainMode == .auto)
        player.setRandom(true)
        player.setReplayGainMode(.off)
        player.setReplayGainMode(.album)
        player.setReplayGainMode(.auto)
        player.setRandom(false)
        #expect(pipeline.state.withLock { $0.replayGainModes } == [.album, .track, .off, .album, .track, .album])
        #expect(player.replayGainMode == .auto)
        #expect(log.take() == .options)
    }

    @Test func aSongThatFailsIsSkippedWithAnError() throws {
        let (player, pipeline, _) = makePlayer(songs: 3)
        try player.play(position: 0)
        let (handler, generation) = pipeline.state.withLock { ($0.handler, $0.generation) }
        handler?(generation, .failed("Failed to decode 0.flac"))
        #expect(player.status.error == "Failed to decode 0.flac")
        #expect(player.status.current?.position == 1)
        try player.play(position: nil)
        player.clearError()
        #expect(player.status.error == nil)
    }

    /// No output can play: MPD pauses on the song with the output's error instead of skipping
    /// songs that are not at fault; resuming starts the song again where it was, which makes
    /// the pipeline try its outputs again.
    @Test func whenNoOutputCanPlayThePlayerPausesOnTheSong() throws {
        let (player, pipeline, _) = makePlayer(songs: 3)
        try player.play(position: 0)
        let (handler, generation) = pipeline.state.withLock { ($0.handler, $0.generation) }
        pipeline.setPaused(true)  // as the pipeline does before it reports
        handler?(generation, .outputsFailed("Failed to open \"broken\" (alsa); no card"))
        #expect(player.status.error == "Failed to open \"broken\" (alsa); no card")
        #expect(player.status.state == .pause)
        #expect(player.status.current?.position == 0)
        try player.play(position: nil)
        let plays = pipeline.state.withLock { $0.plays }
        #expect(plays.map(\.token) == [1, 1])
        #expect(plays.last?.offset == 1.5)
        #expect(player.status.state == .play)
    }

    /// The pipeline goes on to the queued song by itself and tells the player through an
    /// event: until the event arrives, the song the player calls current reads as played to
    /// its end (10 s), not at the next song's position (1.5 s, a whole song back).
    @Test func theSongThePipelineLeftReadsAsEndedUntilThePlayerHearsOfIt() throws {
        let (player, pipeline, _) = makePlayer(songs: 3)
        try player.play(position: 0)
        #expect(player.status.current?.id == 1)
        #expect(player.status.elapsed == 1.5)
        let tell = pipeline.moveOnBeforeTelling()
        #expect(player.status.current?.id == 1)
        #expect(player.status.elapsed == 10)
        tell()
        #expect(player.status.current?.id == 2)
        #expect(player.status.elapsed == 1.5)
    }

    /// The same when the pipeline runs out after the last song: it reads as ended, not at 0,
    /// until the player hears of it and stops.
    @Test func theLastSongReadsAsEndedUntilThePlayerHearsThePipelineRanOut() throws {
        let (player, pipeline, _) = makePlayer(songs: 2)
        try player.play(position: 1)
        let tell = pipeline.moveOnBeforeTelling()
        #expect(player.status.state == .play)
        #expect(player.status.current?.id == 2)
        #expect(player.status.elapsed == 10)
        tell()
        #expect(player.status.state == .stop)
    }

    /// A relative `seekcur` in that moment counts from the end of the song that ended, as
    /// `status` shows it: past its end, which plays the next song, rather than back into it.
    @Test func aRelativeSeekAtTheBorderCountsFromTheEndedSong() throws {
        let (player, pipeline, _) = makePlayer(songs: 3)
        try player.play(position: 0)
        _ = pipeline.moveOnBeforeTelling()
        try player.seekCurrent(2, relative: true)
        let last = pipeline.state.withLock { $0.plays.last! }
        #expect(last.token == 1)
        #expect(last.offset == 12)
    }

    /// The pipeline pauses for its outputs at once and tells the player through an event: in
    /// between, `status` shows the pause with its error, as MPD sets both together. Once the
    /// player has the error, `clearerror` clears it although the pipeline stays paused.
    @Test func theOutputsErrorShowsWithThePauseBeforeTheEventArrives() throws {
        let (player, pipeline, _) = makePlayer(songs: 2)
        try player.play(position: 0)
        let message = "All audio outputs are disabled"
        let (handler, generation) = pipeline.state.withLock { s in
            s.paused = true
            s.outputsFailure = message
            return (s.handler, s.generation)
        }
        #expect(player.status.state == .pause)
        #expect(player.status.error == message)
        handler?(generation, .outputsFailed(message))
        #expect(player.status.error == message)
        player.clearError()
        #expect(player.status.error == nil)
        #expect(player.status.state == .pause)
    }
}
