package import MusicModel
package import Settings

/// The play queue ("current playlist"): entries in position order, a play order, ids, versions
/// and the playback modes that decide which entry follows which (MPD's `Queue`).
///
/// Positions index ``items``; *orders* index the play order, which is the identity unless
/// random mode shuffles it. The player's current and next songs are orders, so that random
/// playback walks one shuffled sequence. Every change stamps the touched entries with the
/// current ``version`` and then bumps it, which is what `plchanges` reads.
///
/// The songs themselves sit in slots that do not move with their entries: an edit shifts
/// 16-byte ``QueueItem``s and updates a flat id → position table, as MPD's arrays do, so that
/// on a long queue a `move` costs a short copy rather than one of every song.
package struct Queue: Sendable {
    /// The most entries the queue holds (`max_playlist_length`).
    package let maximumLength: Int
    /// Position → id, version, priority and song slot.
    var items: [QueueItem] = []
    /// Slot → song; as many as there are entries, in no particular order.
    private var songs: [QueuedSong] = []
    /// Play order → position. The identity whenever random is off.
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
    /// What random mode shuffles; kept while random is off, so that `random 1` turns on the
    /// mode last chosen. Set through the player, which reorders the queue.
    package internal(set) var shuffleMode = ShuffleMode.songs

    /// Id → position, −1 for an id not in use. It grows with the highest id given out, which
    /// stays below `idLimit`.
    private var positionByID: [Int32] = []
    private var nextID = 1
    private let idLimit: Int
    var generator: ShuffleGenerator

    /// Creates an empty queue.
    /// - Parameter seed: seeds the shuffles, for reproducible tests; `nil` seeds randomly.
    package init(maximumLength: Int, seed: UInt64? = nil) {
        self.maximumLength = maximumLength
        // MPD sizes its id table at four times the queue, so an id is not reused soon; ids and
        // positions are kept in 32 bits, as MPD's are.
        idLimit = min(max(maximumLength, 1), Int(Int32.max) / 4) * 4
        generator = ShuffleGenerator(seed: seed ?? UInt64.random(in: 0...UInt64.max))
    }

    /// The entries in position order (a view that later edits do not change).
    package var entries: QueueEntries { QueueEntries(items: items, songs: songs) }
    /// The number of entries.
    package var count: Int { items.count }
    /// Whether the queue is empty.
    package var isEmpty: Bool { items.isEmpty }
    /// Whether another song fits.
    package var isFull: Bool { items.count >= maximumLength }

    /// The entry at `position`.
    package func entry(at position: Int) -> QueueEntry { entries[position] }
    /// The id of the entry at `position`.
    package func id(at position: Int) -> Int { Int(items[position].id) }
    /// The version at which the entry at `position` last changed.
    package func version(at position: Int) -> UInt32 { items[position].version }
    /// The song of the entry at `position`.
    package func song(at position: Int) -> Song { songs[Int(items[position].slot)].song }

    /// The positions in `range` whose entries changed at `version` or later (`plchanges`); all
    /// of them when `version` is newer than the queue. A client asks after every change, so
    /// this reads the versions straight from the buffer.
    package func positionsChanged(since version: UInt32, in range: Range<Int>) -> [Int] {
        guard version <= self.version else { return Array(range) }
        return items.withUnsafeBufferPointer { items in range.filter { items[$0].version >= version } }
    }

    /// The position of the entry with `id`, or `nil`.
    package func position(ofID id: Int) -> Int? {
        guard id >= 0 && id < positionByID.count, positionByID[id] >= 0 else { return nil }
        return Int(positionByID[id])
    }
    /// The position played at `index` of the play order.
    package func position(atOrder index: Int) -> Int { order[index] }
    /// The play-order index of the entry at `position`.
    package func orderIndex(ofPosition position: Int) -> Int {
        guard random else { return position }
        // A shuffled order is a permutation; a linear search keeps it a plain array, as MPD does.
        return order.firstIndex(of: position)!
    }
    /// The id of the entry played at `index` of the play order.
    package func id(atOrder index: Int) -> Int { id(at: order[index]) }
    /// The entry played at `index` of the play order.
    package func entry(atOrder index: Int) -> QueueEntry { entries[order[index]] }

    /// The order index that plays after `index`, or `nil` at the end (MPD's `GetNextOrder`):
    /// single with repeat repeats the song, repeat wraps around, consume never wraps back to a
    /// song it would have removed.
    package func nextOrder(after index: Int) -> Int? {
        let consuming = consume != .off
        if single != .off && repeatMode && !consuming { return index }
        if index + 1 < items.count { return index + 1 }
        if repeatMode && (index > 0 || !consuming) { return 0 }
        return nil
    }

    /// Bumps the version; at 2³¹−1 it starts over at 1 and every entry counts as unchanged.
    package mutating func incrementVersion() {
        version += 1
        if version >= UInt32(Int32.max) {
            for index in items.indices { items[index].version = 0 }
            version = 1
        }
    }

    /// Marks the entry at `position` as changed in the current version.
    package mutating func touch(position: Int) { items[position].version = version }

    /// Appends a song at the end of position and play order; returns the new entry's id.
    /// - Precondition: the queue is not full.
    @discardableResult
    package mutating func append(_ song: Song, priority: UInt8 = 0) -> Int {
        let id = generateID()
        let position = items.count
        if id >= positionByID.count {
            positionByID.append(contentsOf: repeatElement(-1, count: id + 1 - positionByID.count))
        }
        positionByID[id] = Int32(position)
        order.append(position)
        items.append(QueueItem(slot: UInt32(songs.count), id: UInt32(id), version: version, priority: priority))
        songs.append(QueuedSong(song: song, range: .whole, id: UInt32(id)))
        return id
    }

    private mutating func generateID() -> Int {
        while true {
            let id = nextID
            nextID += 1
            if nextID >= idLimit { nextID = 1 }
            if position(ofID: id) == nil { return id }
        }
    }

    /// Replaces the song's range (`rangeid`) and marks it changed.
    package mutating func setRange(position: Int, _ range: SongTimeRange) {
        songs[Int(items[position].slot)].range = range
        touch(position: position)
    }

    /// Replaces the song of the entry at `position` (tag edits), marking it changed.
    package mutating func setSong(position: Int, _ song: Song) {
        songs[Int(items[position].slot)].song = song
        touch(position: position)
    }

    /// Puts `item` at `position`, stamped with the current version.
    private mutating func place(_ item: QueueItem, at position: Int) {
        var item = item
        item.version = version
        items[position] = item
        positionByID[Int(item.id)] = Int32(position)
    }

    /// Swaps two entries' positions; the play order still points at the same positions.
    package mutating func swapPositions(_ first: Int, _ second: Int) {
        let moved = items[first]
        place(items[second], at: first)
        place(moved, at: second)
    }

    /// Swaps two places of the play order.
    package mutating func swapOrders(_ first: Int, _ second: Int) { order.swapAt(first, second) }

    /// Moves the entries `range` so that the first lands at `destination`; positions in the
    /// play order follow the entries they named.
    /// - Precondition: `destination + range.count <= count`.
    package mutating func moveRange(_ range: Range<Int>, to destination: Int) {
        let moved = Array(items[range])
        let shift = range.count
        // The entries between the range and its destination slide over by its length, then the
        // range goes in: every position in between holds another entry, which is a change.
        if destination > range.lowerBound {
            shiftItems(range.upperBound..<(destination + shift), to: range.lowerBound)
        } else {
            shiftItems(destination..<range.lowerBound, to: destination + shift)
        }
        for (offset, item) in moved.enumerated() { place(item, at: destination + offset) }
        guard random else { return }
        order.withUnsafeMutableBufferPointer { order in
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
    }

    /// Moves the items of `source` so that they start at `destination` (the two may overlap),
    /// each stamped with the current version and found by its id there. Every shifting edit
    /// runs this over up to the whole queue, so it moves the items as bytes, as MPD's arrays
    /// are moved, and then makes one pass to stamp them.
    private mutating func shiftItems(_ source: Range<Int>, to destination: Int) {
        guard !source.isEmpty else { return }
        let version = version
        items.withUnsafeMutableBufferPointer { items in
            let base = UnsafeMutableRawPointer(items.baseAddress!)
            let stride = MemoryLayout<QueueItem>.stride
            // memmove: the regions may overlap.
            (base + destination * stride).copyMemory(
                from: base + source.lowerBound * stride, byteCount: source.count * stride)
            positionByID.withUnsafeMutableBufferPointer { positionByID in
                for position in destination..<(destination + source.count) {
                    items[position].version = version
                    positionByID[Int(items[position].id)] = Int32(truncatingIfNeeded: position)
                }
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
        let removed = items[position]
        positionByID[Int(removed.id)] = -1
        releaseSlot(Int(removed.slot))
        if random {
            order.remove(at: orderIndex(ofPosition: position))
            order.withUnsafeMutableBufferPointer { order in
                for index in order.indices where order[index] > position { order[index] -= 1 }
            }
        } else {
            // The identity, one shorter.
            order.removeLast()
        }
        shiftItems((position + 1)..<items.count, to: position)
        items.removeLast()
    }

    /// Frees a song slot: the last slot's song moves into it, so the slots stay as many as
    /// the entries.
    private mutating func releaseSlot(_ slot: Int) {
        let last = songs.count - 1
        if slot != last {
            songs.swapAt(slot, last)
            items[Int(positionByID[Int(songs[slot].id)])].slot = UInt32(slot)
        }
        songs.removeLast()
    }

    /// Removes every entry.
    package mutating func removeAll() {
        items.removeAll()
        songs.removeAll()
        order.removeAll()
        positionByID.removeAll()
    }

    /// Makes the play order the identity again (random switched off).
    package mutating func restoreOrder() { order = Array(items.indices) }
}
