import MusicModel
import Testing

@testable import Playback

/// A queue of `count` songs named `0.flac`, `1.flac`, …
func makeQueue(_ count: Int, maximumLength: Int = 100, seed: UInt64 = 7) -> Queue {
    var queue = Queue(maximumLength: maximumLength, seed: seed)
    for index in 0..<count { queue.append(song(index)) }
    return queue
}

func song(_ index: Int, duration: Double? = 10) -> Song {
    Song(uri: "\(index).flac", lastModified: 0, added: 0, audioFormat: "44100:16:2", duration: duration, tags: [])
}

/// The URIs' numbers in position order.
func names(_ queue: Queue) -> [Int] { queue.entries.map { Int($0.song.uri.dropLast(5))! } }

@Suite struct QueueTests {
    @Test func idsStartAtOneAndFollowTheirEntries() {
        var queue = makeQueue(3)
        #expect(queue.entries.map(\.id) == [1, 2, 3])
        queue.moveRange(0..<1, to: 2)
        #expect(queue.entries.map(\.id) == [2, 3, 1])
        #expect(queue.position(ofID: 1) == 2)
        queue.remove(position: 0)
        #expect(queue.position(ofID: 2) == nil)
        #expect(queue.position(ofID: 3) == 0)
        #expect(queue.append(song(9)) == 4)
    }

    @Test func idsWrapAroundWithoutReusingLiveOnes() {
        var queue = Queue(maximumLength: 2, seed: 1)
        // The id space is four times the queue: 1…7.
        var seen: [Int] = []
        for index in 0..<10 {
            seen.append(queue.append(song(index)))
            if queue.count == 2 { queue.remove(position: 0) }
        }
        #expect(seen == [1, 2, 3, 4, 5, 6, 7, 1, 2, 3])
        #expect(Set(queue.entries.map(\.id)).count == queue.count)
    }

    @Test func versionsMarkWhatChanged() {
        var queue = makeQueue(4)
        #expect(queue.version == 1)
        #expect(queue.entries.allSatisfy { $0.version == 1 })
        queue.incrementVersion()
        queue.swapPositions(1, 2)
        queue.incrementVersion()
        #expect(queue.entries.map(\.version) == [1, 2, 2, 1])
        queue.moveRange(3..<4, to: 2)
        #expect(queue.entries.map(\.version) == [1, 2, 3, 3])
        queue.incrementVersion()
        queue.remove(position: 1)
        #expect(queue.entries.map(\.version) == [1, 4, 4])
    }

    @Test(arguments: [(0..<2, 2), (2..<4, 0), (1..<2, 3), (3..<4, 1)])
    func moveRangeKeepsTheRandomOrderOnTheSameSongs(range: Range<Int>, destination: Int) {
        var queue = makeQueue(5)
        queue.random = true
        queue.shuffleOrder()
        let played = (0..<5).map { queue.entry(atOrder: $0).id }
        queue.moveRange(range, to: destination)
        #expect((0..<5).map { queue.entry(atOrder: $0).id } == played)
        #expect(Set(queue.order) == Set(0..<5))
    }

    @Test func removeKeepsTheOrderAPermutation() {
        var queue = makeQueue(6)
        queue.random = true
        queue.shuffleOrder()
        let played = (0..<6).map { queue.entry(atOrder: $0).id }
        let removedID = queue.entries[2].id
        queue.remove(position: 2)
        #expect((0..<5).map { queue.entry(atOrder: $0).id } == played.filter { $0 != removedID })
    }

    @Test func nextOrderFollowsTheModes() {
        var queue = makeQueue(3)
        #expect(queue.nextOrder(after: 0) == 1)
        #expect(queue.nextOrder(after: 2) == nil)
        queue.repeatMode = true
        #expect(queue.nextOrder(after: 2) == 0)
        queue.single = .on
        #expect(queue.nextOrder(after: 1) == 1)
        queue.consume = .on
        // Consume with repeat and single does not repeat a song it removes.
        #expect(queue.nextOrder(after: 1) == 2)
        #expect(queue.nextOrder(after: 2) == 0)
        queue.single = .off
        var one = makeQueue(1)
        one.repeatMode = true
        one.consume = .on
        #expect(one.nextOrder(after: 0) == nil)
    }

    @Test func shuffleGroupsByDescendingPriority() {
        var queue = makeQueue(8)
        for (position, priority) in [(1, 5), (4, 5), (6, 9)] {
            queue.setPriority(position: position, UInt8(priority), after: nil)
        }
        queue.random = true
        queue.shuffleOrder()
        let priorities = (0..<8).map { queue.entry(atOrder: $0).priority }
        #expect(priorities == [9, 5, 5, 0, 0, 0, 0, 0])
        #expect(Set(queue.order) == Set(0..<8))
    }

    @Test func priorityMovesAnUnplayedSongRightAfterTheCurrentOne() {
        var queue = makeQueue(6)
        queue.random = true
        queue.restoreOrder()
        // Current is order 2; position 5 gets a priority and must play next.
        queue.setPriority(position: 5, 10, after: 2)
        #expect(queue.position(atOrder: 3) == 5)
        // A song already played (order 0) comes back only when its priority beats the current one's.
        queue.setPriority(position: 0, 3, after: 2)
        #expect(queue.orderIndex(ofPosition: 0) == 3 || queue.orderIndex(ofPosition: 0) == 4)
    }

    @Test func aPlayedSongStaysPlayedUnlessItsPriorityBeatsTheCurrentOne() {
        var queue = makeQueue(4)
        queue.random = true
        queue.restoreOrder()
        queue.setPriority(position: 1, 30, after: nil, reorder: false)
        // The current song (order 1) has priority 30; 20 does not beat it.
        queue.setPriority(position: 0, 20, after: 1)
        #expect(queue.orderIndex(ofPosition: 0) == 0)
        #expect(queue.entries[0].priority == 20)
    }

    @Test func appendedSongsLandInTheUnplayedPartOfTheirPriority() {
        var queue = makeQueue(5)
        queue.random = true
        queue.shuffleOrder()
        let before = Array(queue.order[0...2])
        queue.append(song(5))
        queue.shuffleOrderLastWithPriority(3..<6)
        #expect(Array(queue.order[0...2]) == before)
        #expect(queue.order[3...].contains(5))
    }

    @Test func versionWrapsAtTwoToTheThirtyFirst() {
        var queue = makeQueue(2)
        queue.version = UInt32(Int32.max) - 2
        queue.touch(position: 0)
        queue.incrementVersion()
        #expect(queue.version == UInt32(Int32.max) - 1)
        queue.incrementVersion()
        #expect(queue.version == 1)
        #expect(queue.entries.allSatisfy { $0.version == 0 })
    }

    /// What plays of an entry: the rest of the song after its start, or up to its end.
    @Test func aRangePlaysItsPartOfTheSong() {
        #expect(SongTimeRange.whole.isWhole && !SongTimeRange(start: 1).isWhole && !SongTimeRange(end: 9).isWhole)
        #expect(SongTimeRange(start: 10).length(of: 200) == 190)
        #expect(SongTimeRange(start: 10, end: 30).length(of: 200) == 20)
        #expect(SongTimeRange(start: 10, end: 30).length(of: nil) == 20)
        #expect(SongTimeRange(start: 10).length(of: nil) == nil)
    }
}
