import MusicModel
import Settings

/// Queue edits that keep the current and queued songs right (MPD's `PlaylistEdit.cxx`).
extension PlayerCore {
    /// Appends a song; in random mode it is shuffled into the part not played yet: after the
    /// song queued to play next, or in album shuffle after the current one, so that a song of
    /// the playing album joins it even when the next song is already queued.
    /// - Throws: ``QueueError/tooLarge`` when the queue is full.
    mutating func append(_ song: Song) throws(QueueError) -> Int {
        guard !queue.isFull else { throw .tooLarge }
        let previous = queuedSongID
        let id = queue.append(song)
        if queue.random {
            let after = queue.shuffleMode == .albums ? current : (queued ?? current)
            let start = (after ?? -1) + 1
            if start < queue.count { queue.shuffleOrderLastWithPriority(start..<queue.count) }
        }
        updateQueuedSong(previous: previous)
        modified()
        return id
    }

    /// Appends songs one by one, as the one-song `append` does; in album shuffle it appends
    /// them all and then places them in one pass, since placing each song scans the unplayed
    /// part of the order. Each song still counts as a change, as one by one.
    /// - Parameter ids: receives the new entries' ids, those that fitted when the queue fills.
    /// - Throws: ``QueueError/tooLarge`` when the queue is full.
    private mutating func appendEach(_ songs: [Song], ids: inout [Int]) throws(QueueError) {
        guard queue.random && queue.shuffleMode == .albums && songs.count > 1 else {
            for song in songs { ids.append(try append(song)) }
            return
        }
        let previous = queuedSongID
        let start = queue.count
        defer {
            if queue.count > start {
                queue.placeAddedInAlbums(((current ?? -1) + 1)..<queue.count, added: queue.count - start)
                updateQueuedSong(previous: previous)
            }
        }
        for song in songs {
            guard !queue.isFull else { throw .tooLarge }
            ids.append(queue.append(song))
            modified()
        }
    }

    /// Appends songs, then moves them to `position` if given.
    /// - Parameter bulk: count them as one change (MPD's bulk edit, as `add DIR` does) rather
    ///   than one per song (as `findadd` does).
    /// - Returns: the new entries' ids.
    mutating func append(_ songs: [Song], at position: Int? = nil, bulk: Bool = true) throws(QueueError) -> [Int] {
        let start = queue.count
        var ids: [Int] = []
        if bulk { beginBulk() }
        do {
            try appendEach(songs, ids: &ids)
        } catch {
            // What fitted stays, as in MPD, which then reports the full queue.
            if bulk { commitBulk() }
            throw error
        }
        if bulk { commitBulk() }
        // Moving into place is a change of its own, as MPD appends and then moves.
        if let position, !ids.isEmpty { try move(start..<queue.count, to: position) }
        return ids
    }

    /// `load`: appends a playlist's songs as one change, moves them to `position` when that is
    /// before the old end (MPD ignores a failing move), and remembers the playlist's name for
    /// `status` (`lastloadedplaylist`, MPD 0.24). When the queue fills up, the songs that fitted
    /// stay and the name is not taken.
    mutating func load(_ songs: [Song], at position: Int?, name: String) throws(QueueError) {
        let start = queue.count
        beginBulk()
        defer { commitBulk() }
        var ids: [Int] = []
        try appendEach(songs, ids: &ids)
        if let position, position < start, queue.count > start { try? move(start..<queue.count, to: position) }
        lastLoadedPlaylist = name
    }

    /// Empties the queue and stops.
    mutating func clear() {
        stop()
        queue.removeAll()
        current = nil
        lastLoadedPlaylist = ""
        modified()
    }

    /// Removes the entry at `position`; removing the playing song goes on with the next one.
    private mutating func deleteInternal(_ position: Int, previous: inout Int?) {
        let index = queue.orderIndex(ofPosition: position)
        if playing && current == index {
            let paused = pipeline.status.state == .pause
            current = queue.nextOrder(after: index)
            if current == index { current = nil }
            if let next = current, !paused {
                // Play on with the song after the deleted one (indices shift after the removal).
                playOrder(next)
            } else {
                endListening(leftByUser: false)
                pipeline.stop()
                playing = false
                events.insert(.player)
            }
            previous = nil
        } else if current == index {
            current = nil
        }
        queue.remove(position: position)
        if let now = current, now > index { current = now - 1 }
        if let later = queued, later > index { queued = later - 1 }
    }

    /// Removes the song at play-order `index` (consume).
    mutating func deleteOrder(_ index: Int) {
        try? delete(position: queue.position(atOrder: index))
    }

    /// `delete POS`.
    mutating func delete(position: Int) throws(QueueError) {
        guard position >= 0 && position < queue.count else { throw .badSongIndex }
        var previous = queuedSongID
        deleteInternal(position, previous: &previous)
        updateQueuedSong(previous: previous)
        modified()
    }

    /// `delete START:END`.
    mutating func delete(range: RangeArgument) throws(QueueError) {
        let positions = try clip(range)
        guard !positions.isEmpty else { return }
        var previous = queuedSongID
        for position in positions.reversed() { deleteInternal(position, previous: &previous) }
        updateQueuedSong(previous: previous)
        modified()
    }

    /// Removes the entries of songs the library no longer has, as MPD's `StaleSong` does after
    /// an update, except the song playing: its file may still be open and play to its end.
    mutating func removeStale(_ uris: Set<String>) {
        let playingPosition = playing ? current.map { queue.position(atOrder: $0) } : nil
        var previous = queuedSongID
        var removed = false
        // From the end, so that the positions still to visit do not shift.
        for position in queue.entries.indices.reversed()
        where position != playingPosition && uris.contains(queue.song(at: position).uri) {
            deleteInternal(position, previous: &previous)
            removed = true
        }
        guard removed else { return }
        updateQueuedSong(previous: previous)
        modified()
    }

    /// `deleteid ID`.
    mutating func delete(id: Int) throws(QueueError) {
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        try delete(position: position)
    }

    /// A range checked against the queue: an open end means the end of the queue.
    func clip(_ range: RangeArgument) throws(QueueError) -> Range<Int> {
        let end = range.upperBound(clippedTo: queue.count)
        guard range.start <= queue.count, range.start <= end else { throw .badSongIndex }
        return range.start..<end
    }

    /// `move`: moves `range` so that its first song lands at `destination`.
    mutating func move(_ range: Range<Int>, to destination: Int) throws(QueueError) {
        guard !range.isEmpty, range.upperBound <= queue.count, destination <= queue.count - range.count else {
            throw .badSongIndex
        }
        guard range.lowerBound != destination else { return }
        let previous = queuedSongID
        queue.moveRange(range, to: destination)
        if !queue.random, let now = current {
            if range.contains(now) {
                current = now + destination - range.lowerBound
            } else if now >= range.upperBound && now <= destination {
                current = now - range.count
            } else if now >= destination && now < range.lowerBound {
                current = now + range.count
            }
        }
        updateQueuedSong(previous: previous)
        modified()
    }

    /// `swap POS1 POS2`.
    mutating func swap(_ first: Int, _ second: Int) throws(QueueError) {
        guard (0..<queue.count).contains(first), (0..<queue.count).contains(second) else {
            throw .badSongIndex
        }
        let previous = queuedSongID
        queue.swapPositions(first, second)
        if queue.random {
            queue.swapOrders(queue.orderIndex(ofPosition: first), queue.orderIndex(ofPosition: second))
        } else if let now = current {
            if now == first { current = second } else if now == second { current = first }
        }
        updateQueuedSong(previous: previous)
        modified()
    }

    /// `swapid ID1 ID2`.
    mutating func swap(id first: Int, id second: Int) throws(QueueError) {
        guard let a = queue.position(ofID: first), let b = queue.position(ofID: second) else {
            throw .noSuchSong
        }
        try swap(a, b)
    }

    /// `shuffle [START:END]`: shuffles the entries; the playing song moves to the front first.
    mutating func shuffle(_ range: RangeArgument) throws(QueueError) {
        var positions = try clip(range)
        guard positions.count >= 2 else { return }
        let previous = queuedSongID
        if playing, let position = currentPosition {
            if positions.contains(position) {
                queue.swapPositions(positions.lowerBound, position)
                current = queue.random ? queue.orderIndex(ofPosition: positions.lowerBound) : positions.lowerBound
                positions = (positions.lowerBound + 1)..<positions.upperBound
            }
        } else {
            current = nil
        }
        queue.shufflePositions(positions)
        updateQueuedSong(previous: previous)
        modified()
    }

    /// `prio PRIORITY START:END`.
    mutating func setPriority(_ priority: UInt8, range: RangeArgument) throws(QueueError) {
        let positions = try clip(range)
        guard !positions.isEmpty else { return }
        let position = currentPosition
        let previous = queuedSongID
        queue.setPriority(positions: positions, priority, after: current)
        if let position { current = queue.orderIndex(ofPosition: position) }
        updateQueuedSong(previous: previous)
        modified()
    }

    /// `prioid PRIORITY ID`.
    mutating func setPriority(_ priority: UInt8, id: Int) throws(QueueError) {
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        try setPriority(priority, range: RangeArgument(start: position, end: position + 1))
    }

    /// `rangeid ID START:END`: the part of the song that plays; not for the playing song.
    mutating func setRange(id: Int, _ range: SongTimeRange) throws(QueueError) {
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        var requeue = false
        if playing {
            if position == currentPosition { throw .cannotEditCurrentSong }
            if let queued, queue.position(atOrder: queued) == position {
                pipeline.enqueue(nil)
                self.queued = nil
                requeue = true
            }
        }
        var range = range
        if let duration = queue.song(at: position).duration {
            guard range.start <= duration else { throw .startPastSongEnd }
            if let end = range.end, end >= duration { range.end = nil }
        }
        queue.setRange(position: position, range)
        if requeue { updateQueuedSong(previous: nil) }
        modified()
    }

    // MARK: Options

    /// `random`: shuffles the order, keeping the playing song first; off restores it.
    mutating func setRandom(_ on: Bool) {
        guard on != queue.random else { return }
        let previous = queuedSongID
        queue.random = on
        if on {
            let position = playing ? currentPosition : nil
            queue.shuffleOrder()
            if let position {
                current = queue.moveOrder(from: queue.orderIndex(ofPosition: position), to: 0)
                queue.gatherAlbum(afterOrder: 0)
            } else {
                current = nil
            }
        } else {
            if let now = current { current = queue.position(atOrder: now) }
            queue.restoreOrder()
        }
        updateQueuedSong(previous: previous)
        applyReplayGainMode()
        events.insert(.options)
    }

    /// `shufflemode`: random on with `mode` (reshuffled when the mode changes while on), or off
    /// for `nil`, which keeps the mode for the next `random 1`.
    mutating func setShuffle(_ mode: ShuffleMode?) {
        guard let mode else { return setRandom(false) }
        guard mode != queue.shuffleMode else { return setRandom(true) }
        let wasRandom = queue.random
        if wasRandom { setRandom(false) }
        queue.shuffleMode = mode
        setRandom(true)
    }

    /// `repeat`.
    mutating func setRepeat(_ on: Bool) {
        guard on != queue.repeatMode else { return }
        queue.repeatMode = on
        pipeline.setBorderPause(queue.single != .off && !on)
        updateQueuedSong(previous: queuedSongID)
        events.insert(.options)
    }

    /// `single`.
    mutating func setSingle(_ mode: SingleMode) {
        guard mode != queue.single else { return }
        queue.single = mode
        pipeline.setBorderPause(mode != .off && !queue.repeatMode)
        updateQueuedSong(previous: queuedSongID)
        events.insert(.options)
    }

    /// `consume`.
    mutating func setConsume(_ mode: ConsumeMode) {
        guard mode != queue.consume else { return }
        queue.consume = mode
        updateQueuedSong(previous: queuedSongID)
        events.insert(.options)
    }
}
