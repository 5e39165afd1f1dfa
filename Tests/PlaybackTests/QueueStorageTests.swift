import MusicModel
import Testing

@testable import Playback

/// The queue's storage (items by position, songs in slots, the id table) checked against a
/// plain list of entries that edits the obvious way, over seeded random edit sequences.
@Suite struct QueueStorageTests {
    /// The reference: entries in position order, each edit written as simply as it can be.
    struct Model {
        var entries: [QueueEntry] = []
        var version: UInt32 = 1

        mutating func stamp(_ positions: Range<Int>) {
            for position in positions { entries[position].version = version }
        }
    }

    /// Applies one random edit to both; returns what it was, for the failure message.
    static func edit(_ queue: inout Queue, _ model: inout Model, _ rng: inout ShuffleGenerator, next: inout Int)
        -> String
    {
        let count = queue.count
        let choice = count == 0 ? 0 : Int.random(in: 0..<7, using: &rng)
        switch choice {
        case 0, 1:
            let id = queue.append(song(next))
            model.entries.append(QueueEntry(song: song(next), id: id, version: model.version, priority: 0))
            next += 1
            return "append"
        case 2:
            let position = Int.random(in: 0..<count, using: &rng)
            queue.remove(position: position)
            model.entries.remove(at: position)
            model.stamp(position..<model.entries.count)
            return "remove \(position)"
        case 3:
            let start = Int.random(in: 0..<count, using: &rng)
            let end = Int.random(in: (start + 1)...count, using: &rng)
            let destination = Int.random(in: 0...(count - (end - start)), using: &rng)
            queue.moveRange(start..<end, to: destination)
            let moved = Array(model.entries[start..<end])
            model.entries.removeSubrange(start..<end)
            model.entries.insert(contentsOf: moved, at: destination)
            model.stamp(min(start, destination)..<max(end, destination + moved.count))
            return "move \(start)..<\(end) to \(destination)"
        case 4:
            let (first, second) = (Int.random(in: 0..<count, using: &rng), Int.random(in: 0..<count, using: &rng))
            queue.swapPositions(first, second)
            model.entries.swapAt(first, second)
            model.stamp(first..<(first + 1))
            model.stamp(second..<(second + 1))
            return "swap \(first) \(second)"
        case 5:
            let position = Int.random(in: 0..<count, using: &rng)
            let range = SongTimeRange(start: Double(position), end: nil)
            queue.setRange(position: position, range)
            model.entries[position].range = range
            model.stamp(position..<(position + 1))
            return "range \(position)"
        default:
            let position = Int.random(in: 0..<count, using: &rng)
            let priority = UInt8.random(in: 0...3, using: &rng)
            if queue.setPriority(position: position, priority, after: nil) {
                model.entries[position].priority = priority
                model.stamp(position..<(position + 1))
            }
            return "priority \(position) \(priority)"
        }
    }

    @Test(arguments: 1...20 as ClosedRange<UInt64>)
    func randomEditsKeepEntriesIdsAndVersionsAsAPlainListWould(seed: UInt64) {
        var queue = Queue(maximumLength: 40, seed: seed)
        var model = Model()
        var rng = ShuffleGenerator(seed: seed)
        var next = 0
        for step in 0..<300 {
            let what = queue.isFull ? "full" : Self.edit(&queue, &model, &rng, next: &next)
            queue.incrementVersion()
            model.version += 1
            #expect(Array(queue.entries) == model.entries, "seed \(seed), step \(step): \(what)")
            for (position, entry) in model.entries.enumerated() {
                #expect(queue.position(ofID: entry.id) == position, "seed \(seed), step \(step): \(what)")
                #expect(queue.id(at: position) == entry.id && queue.version(at: position) == entry.version)
            }
            #expect(queue.order == Array(0..<queue.count))
            if queue.isFull {
                while !queue.isEmpty { queue.remove(position: 0) }
                model.entries.removeAll()
            }
        }
    }

    @Test func aRemovedEntrysIdNamesNothingAndTheOtherSongsStayWithTheirEntries() {
        var queue = makeQueue(5)
        let ids = queue.entries.map(\.id)
        queue.remove(position: 1)
        queue.remove(position: 0)
        #expect(queue.position(ofID: ids[0]) == nil && queue.position(ofID: ids[1]) == nil)
        #expect(names(queue) == [2, 3, 4])
        #expect(queue.position(ofID: 0) == nil && queue.position(ofID: -1) == nil && queue.position(ofID: 99) == nil)
        queue.append(song(7))
        #expect(names(queue) == [2, 3, 4, 7])
        #expect(queue.song(at: 3).uri == "7.flac")
    }

    @Test func aViewOfTheEntriesStaysAsItWasWhenTheQueueChanges() {
        var queue = makeQueue(4)
        let before = queue.entries
        queue.moveRange(0..<1, to: 3)
        queue.remove(position: 0)
        #expect(before.map { $0.song.uri } == ["0.flac", "1.flac", "2.flac", "3.flac"])
        #expect(names(queue) == [2, 3, 0])
    }
}
