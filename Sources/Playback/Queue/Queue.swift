package import MusicModel

/// The play queue ("current playlist"): entries in position order, a play order, ids, versions
/// and the playback modes that decide which entry follows which (MPD's `Queue`).
///
/// Positions index ``entries``; *orders* index the play order, which is the identity unless
/// random mode shuffles it. The player's current and next songs are orders, so that random
/// playback walks one shuffled sequence. Every change stamps the touched entries with the
/// current ``version`` and then bumps it, which is what `plchanges` reads.
package struct Queue: Sendable {
    /// The most entries the queue holds (`max_playlist_length`).
    package let maximumLength: Int
    /// The entries in position order.
    package internal(set) var entries: [QueueEntry] = []
    /// Play order → position.
    package internal(set) var order: [Int] = []
    /// The queue version: starts at 1 and grows with every change.
    package internal(set) var version: UInt32 = 1
    /// `repeat`: start over after the last song.
    package var repeatMode = false
    /// `single`.
    package var single = SingleMode.off
    /// `consume`.
    package var consume = ConsumeMode.off
    /// `random`: whether ``order`` is shuffled. Set through the player, which keeps the
    /// current song in place.
    package internal(set) var random = false

    private var positionByID: [Int: Int] = [:]
    private var nextID = 1
    private let idLimit: Int
    var generator: ShuffleGenerator

    /// Creates an empty queue.
    /// - Parameter seed: seeds the shuffles, for reproducible tests; `nil` seeds randomly.
    package init(maximumLength: Int, seed: UInt64? = nil) {
        self.maximumLength = maximumLength
        // MPD sizes its id table at four times the queue, so an id is not reused soon.
        idLimit = max(maximumLength, 1) * 4
        generator = ShuffleGenerator(seed: seed ?? UInt64.random(in: 0...UInt64.max))
    }

    /// The number of entries.
    package var count: Int { entries.count }
    /// Whether the queue is empty.
    package var isEmpty: Bool { entries.isEmpty }
    /// Whether another song fits.
    package var isFull: Bool { entries.count >= maximumLength }

    /// The position of the entry with `id`, or `nil`.
    package func position(ofID id: Int) -> Int? { positionByID[id] }
    /// The position played at `index` of the play order.
    package func position(atOrder index: Int) -> Int { order[index] }
    /// The play-order index of the entry at `position`.
    package func orderIndex(ofPosition position: Int) -> Int {
        // The order is a permutation; a linear search keeps it a plain array, as MPD does.
        order.firstIndex(of: position)!
    }
    /// The entry played at `index` of the play order.
    package func entry(atOrder index: Int) -> QueueEntry { entries[order[index]] }

    /// The order index that plays after `index`, or `nil` at the end (MPD's `GetNextOrder`):
    /// single with repeat repeats the song, repeat wraps around, consume never wraps back to a
    /// song it would have removed.
    package func nextOrder(after index: Int) -> Int? {
        let consuming = consume != .off
        if single != .off && repeatMode && !consuming { return index }
        if index + 1 < entries.count { return index + 1 }
        if repeatMode && (index > 0 || !consuming) { return 0 }
        return nil
    }

    /// Bumps the version; at 2³¹−1 it starts over at 1 and every entry counts as unchanged.
    package mutating func incrementVersion() {
        version += 1
        if version >= UInt32(Int32.max) {
            for index in entries.indices { entries[index].version = 0 }
            version = 1
        }
    }

    /// Marks the entry at `position` as changed in the current version.
    package mutating func touch(position: Int) { entries[position].version = version }

    /// Appends a song at the end of position and play order; returns the new entry's id.
    /// - Precondition: the queue is not full.
    @discardableResult
    package mutating func append(_ song: Song, priority: UInt8 = 0) -> Int {
        let id = generateID()
        positionByID[id] = entries.count
        order.append(entries.count)
        entries.append(QueueEntry(song: song, id: id, version: version, priority: priority))
        return id
    }

    private mutating func generateID() -> Int {
        while true {
            let id = nextID
            nextID += 1
            if nextID >= idLimit { nextID = 1 }
            if positionByID[id] == nil { return id }
        }
    }

    /// Replaces the song's range (`rangeid`) and marks it changed.
    package mutating func setRange(position: Int, _ range: SongTimeRange) {
        entries[position].range = range
        touch(position: position)
    }

    /// Replaces the song of the entry at `position` (tag edits), marking it changed.
    package mutating func setSong(position: Int, _ song: Song) {
        entries[position].song = song
        touch(position: position)
    }

    /// Swaps two entries' positions; the play order still points at the same positions.
    package mutating func swapPositions(_ first: Int, _ second: Int) {
        entries.swapAt(first, second)
        entries[first].version = version
        entries[second].version = version
        positionByID[entries[first].id] = first
        positionByID[entries[second].id] = second
    }

    /// Swaps two places of the play order.
    package mutating func swapOrders(_ first: Int, _ second: Int) { order.swapAt(first, second) }

    /// Moves the entries `range` so that the first lands at `destination`; positions in the
    /// play order follow the entries they named.
    /// - Precondition: `destination + range.count <= count`.
    package mutating func moveRange(_ range: Range<Int>, to destination: Int) {
        let moved = Array(entries[range])
        entries.removeSubrange(range)
        entries.insert(contentsOf: moved, at: destination)
        let low = min(range.lowerBound, destination)
        let high = max(range.upperBound, destination + range.count)
        for position in low..<high {
            entries[position].version = version
            positionByID[entries[position].id] = position
        }
        guard random else { return }
        let shift = range.count
        for index in order.indices {
            let position = order[index]
            if range.contains(position) {
                order[index] = position - range.lowerBound + destination
            } else if position >= range.upperBound && position < destination + shift {
                order[index] = position - shift
            } else if position < range.lowerBound && position >= destination {
                order[index] = position + shift
            }
        }
    }

    /// Moves the play-order entry at `from` to `to`, shifting those between; returns `to`.
    @discardableResult
    package mutating func moveOrder(from: Int, to: Int) -> Int {
        let position = order.remove(at: from)
        order.insert(position, at: to)
        return to
    }

    /// Removes the entry at `position` from the entries and the play order.
    package mutating func remove(position: Int) {
        let removed = entries.remove(at: position)
        positionByID[removed.id] = nil
        let index = orderIndex(ofPosition: position)
        order.remove(at: index)
        for index in order.indices where order[index] > position { order[index] -= 1 }
        for later in position..<entries.count {
            entries[later].version = version
            positionByID[entries[later].id] = later
        }
    }

    /// Removes every entry.
    package mutating func removeAll() {
        entries.removeAll()
        order.removeAll()
        positionByID.removeAll()
    }

    /// Makes the play order the identity again (random switched off).
    package mutating func restoreOrder() { order = Array(entries.indices) }
}
