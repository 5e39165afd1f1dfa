import MPDProtocol
import MediaLibrary
import Synchronization
import Testing

@testable import Playback

/// Collects the controller's listening reports.
final class ListeningLog: Sendable {
    private let reports = Mutex<[SongListening]>([])
    func record(_ report: SongListening) { reports.withLock { $0.append(report) } }
    func take() -> [SongListening] {
        reports.withLock {
            let all = $0
            $0 = []
            return all
        }
    }
}

/// What the player reports when a song stops being current, for the play statistics.
@Suite("Listening reports")
struct ListeningTests {
    private func makePlayer(songs: Int) -> (PlayerController, ScriptedPipeline, ListeningLog) {
        let pipeline = ScriptedPipeline()
        let log = ListeningLog()
        let player = PlayerController(
            maximumLength: 50, pipeline: pipeline, hasMixer: false, seed: 3,
            path: { "/music/" + $0 }, notify: { _ in }, listened: { log.record($0) })
        try! player.add((0..<songs).map { song($0) })
        return (player, pipeline, log)
    }

    private func report(_ index: Int, heard: Double, byUser: Bool) -> SongListening {
        SongListening(uri: "\(index).flac", duration: 10, heardSeconds: heard, leftByUser: byUser)
    }

    @Test("a song that runs into the next is reported with the time heard, not left by the user")
    func naturalEnd() throws {
        let (player, pipeline, log) = makePlayer(songs: 3)
        try player.play(position: 0)
        pipeline.advance(10)
        pipeline.endTrack()
        #expect(log.take() == [report(0, heard: 10, byUser: false)])
        pipeline.advance(10)
        pipeline.endTrack()
        pipeline.advance(10)
        pipeline.endTrack()  // the last one: finished, the player stops
        #expect(log.take() == [report(1, heard: 10, byUser: false), report(2, heard: 10, byUser: false)])
        #expect(player.status.state == .stop)
    }

    @Test("next, previous, play and seek to another song are the user's choice")
    func userChoices() throws {
        let (player, pipeline, log) = makePlayer(songs: 4)
        try player.play(position: 0)
        pipeline.advance(2)
        try player.next()
        #expect(log.take() == [report(0, heard: 2, byUser: true)])
        pipeline.advance(1)
        try player.previous()
        #expect(log.take() == [report(1, heard: 1, byUser: true)])
        pipeline.advance(3)
        try player.play(position: 2)
        #expect(log.take() == [report(0, heard: 3, byUser: true)])
        pipeline.advance(4)
        try player.seek(position: 3, to: 1)
        #expect(log.take() == [report(2, heard: 4, byUser: true)])
    }

    @Test("seeking within the song or playing it again keeps counting")
    func sameSong() throws {
        let (player, pipeline, log) = makePlayer(songs: 2)
        try player.play(position: 0)
        pipeline.advance(1)
        try player.seek(position: 0, to: 8)
        pipeline.advance(1)
        try player.seekCurrent(0, relative: false)
        pipeline.advance(1)
        try player.play(position: 0)
        #expect(log.take().isEmpty)
        pipeline.advance(1)
        pipeline.endTrack()
        #expect(log.take() == [report(0, heard: 4, byUser: false)])
    }

    @Test("stop, clear and deleting the current song end the count without a skip")
    func stopAndRemove() throws {
        let (player, pipeline, log) = makePlayer(songs: 3)
        try player.play(position: 0)
        pipeline.advance(1)
        player.stop()
        #expect(log.take() == [report(0, heard: 1, byUser: false)])
        player.stop()
        #expect(log.take().isEmpty)
        try player.play(position: 1)
        pipeline.advance(2)
        try player.delete(id: 2)
        #expect(log.take() == [report(1, heard: 2, byUser: false)])
        pipeline.advance(1)
        player.clear()
        #expect(log.take() == [report(2, heard: 1, byUser: false)])
    }

    @Test("next from the last song stops, still a skip")
    func nextAtTheEnd() throws {
        let (player, pipeline, log) = makePlayer(songs: 1)
        try player.play(position: 0)
        pipeline.advance(1)
        try player.next()
        #expect(log.take() == [report(0, heard: 1, byUser: true)])
        #expect(player.status.state == .stop)
    }
}
