import Settings

/// Random play order and priorities (MPD's `Queue::Shuffle*` and `SetPriority`).
///
/// In random mode the play order is grouped by descending priority and shuffled within each
/// group, so higher priorities play first. Priorities only reorder what has not played yet:
/// the part of the order after the current song.
extension Queue {
    /// The priority of the entry at play-order `index`.
    func priority(atOrder index: Int) -> UInt8 { items[order[index]].priority }

    /// Shuffles the whole play order, grouped by priority.
    package mutating func shuffleOrder() { shuffleOrderWithPriority(0..<items.count) }

    /// Sorts `range` of the play order by descending priority (stably), then shuffles each
    /// group of equal priority; in album shuffle, by album (``shuffleAlbums(_:)``).
    mutating func shuffleOrderWithPriority(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        if shuffleMode == .albums { return shuffleAlbums(range) }
        let sorted = order[range].enumerated().sorted { left, right in
            let (a, b) = (items[left.element].priority, items[right.element].priority)
            return a != b ? a > b : left.offset < right.offset
        }.map(\.element)
        order.replaceSubrange(range, with: sorted)
        var groupStart = range.lowerBound
        for index in range.dropFirst() where priority(atOrder: index) != priority(atOrder: groupStart) {
            order[groupStart..<index].shuffle(using: &generator)
            groupStart = index
        }
        order[groupStart..<range.upperBound].shuffle(using: &generator)
    }

    /// Swaps the first place of `range` with a random place of it.
    mutating func shuffleOrderFirst(_ range: Range<Int>) {
        swapOrders(range.lowerBound, Int.random(in: range, using: &generator))
    }

    /// Moves the last place of `range` (a song just added) to a random place among the songs
    /// of its own priority, so that a new song lands somewhere in the unplayed part.
    package mutating func shuffleOrderLastWithPriority(_ range: Range<Int>) {
        if shuffleMode == .albums { return placeAddedInAlbums(range, added: 1) }
        var start = range.lowerBound
        let last = range.upperBound - 1
        let lastPriority = priority(atOrder: last)
        while priority(atOrder: start) != lastPriority { start += 1 }
        swapOrders(last, Int.random(in: start...last, using: &generator))
    }

    /// Shuffles the entries of `range` themselves (the `shuffle` command), not the play order.
    package mutating func shufflePositions(_ range: Range<Int>) {
        for position in range {
            swapPositions(position, Int.random(in: range, using: &generator))
        }
    }

    /// The first play-order index from `start` whose priority is at most `priority`, skipping
    /// `excluded`; the end when there is none.
    func firstOrder(from start: Int, priorityAtMost priority: UInt8, excluding excluded: Int) -> Int {
        var index = start
        while index < items.count {
            if self.priority(atOrder: index) <= priority && index != excluded { return index }
            index += 1
        }
        return items.count
    }

    /// How many play-order places from `start` have exactly `priority`.
    func countSamePriority(from start: Int, _ priority: UInt8) -> Int {
        var index = start
        while index < items.count && self.priority(atOrder: index) == priority { index += 1 }
        return index - start
    }

    /// Sets the priority of the entry at `position`; in random mode (and with `reorder`) moves
    /// it within the unplayed part of the order, after the play-order index `current`.
    /// - Returns: whether the priority changed.
    @discardableResult
    package mutating func setPriority(position: Int, _ priority: UInt8, after current: Int?, reorder: Bool = true)
        -> Bool
    {
        let old = items[position].priority
        guard old != priority else { return false }
        items[position].version = version
        items[position].priority = priority
        guard random && reorder else { return true }
        if shuffleMode == .albums {
            bringAlbumForward(position: position, oldPriority: old, after: current)
            return true
        }

        let index = orderIndex(ofPosition: position)
        if let current {
            if index == current { return true }
            // A song already played comes back only when its priority rose above the current one's.
            if index < current && (priority <= old || priority <= self.priority(atOrder: current)) { return true }
        }
        let before = firstOrder(from: (current ?? -1) + 1, priorityAtMost: priority, excluding: index)
        let target = before > index ? before - 1 : before
        moveOrder(from: index, to: target)
        shuffleOrderFirst(target..<(target + countSamePriority(from: target, priority)))
        return true
    }

    /// Sets the priority of every entry in `positions`, keeping `current` on the same song.
    /// - Returns: whether any priority changed.
    @discardableResult
    package mutating func setPriority(positions: Range<Int>, _ priority: UInt8, after current: Int?) -> Bool {
        let currentPosition = current.map { order[$0] }
        var changed = false
        for position in positions {
            let currentIndex = currentPosition.map { orderIndex(ofPosition: $0) }
            changed = setPriority(position: position, priority, after: currentIndex) || changed
        }
        return changed
    }
}

/// A small, seedable random number generator (SplitMix64) for the shuffles, so that tests can
/// replay an order.
package struct ShuffleGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a seed.
    package init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
