import MusicModel
import Settings

/// Album shuffle (``ShuffleMode/albums``): the play order keeps each album's songs together,
/// in disc and track order (then queue order), and shuffles the albums.
///
/// An album is the songs that share the `Album` and `AlbumArtist` tags; a song without an
/// album is an album of its own. Priorities work on albums: an album's priority is its highest
/// song's, higher ones play first, and a song given a priority brings its whole album forward.
/// Every edit keeps each album's songs in the unplayed part of the order next to each other.
extension Queue {
    /// Which album the song at `position` belongs to; `nil` for a song without an album.
    func albumKey(atPosition position: Int) -> AlbumKey? {
        var album: String?
        var albumArtist = ""
        song(at: position).packedTags.forEach { type, value in
            if type == .album && album == nil { album = String(decoding: value, as: UTF8.self) }
            if type == .albumArtist && albumArtist.isEmpty { albumArtist = String(decoding: value, as: UTF8.self) }
        }
        return album.map { AlbumKey(album: $0, albumArtist: albumArtist) }
    }

    /// Whether the song at `first` plays before the one at `second` within their album: by disc,
    /// then track, then queue position.
    func playsEarlierInAlbum(_ first: Int, _ second: Int) -> Bool {
        let a = albumPlace(atPosition: first)
        let b = albumPlace(atPosition: second)
        return (a.disc, a.track, first) < (b.disc, b.track, second)
    }

    private func albumPlace(atPosition position: Int) -> (disc: Int, track: Int) {
        let tags = song(at: position).packedTags
        return (TagNumber.leading(tags.first(.disc)), TagNumber.leading(tags.first(.track)))
    }

    /// Shuffles `range` of the play order album by album: gathers each album's songs in album
    /// order, sorts the albums by descending priority (stably) and shuffles each run of equal
    /// priority.
    mutating func shuffleAlbums(_ range: Range<Int>) {
        var albums = albums(in: range)
        for index in albums.indices where albums[index].count > 1 {
            albums[index].sort { playsEarlierInAlbum($0, $1) }
        }
        let priorities = albums.map { album in album.map { items[$0].priority }.max() ?? 0 }
        var sequence = byDescendingPriority(priorities)
        var runStart = 0
        for index in sequence.indices.dropFirst()
        where priorities[sequence[index]] != priorities[sequence[runStart]] {
            sequence[runStart..<index].shuffle(using: &generator)
            runStart = index
        }
        sequence[runStart...].shuffle(using: &generator)
        order.replaceSubrange(range, with: sequence.flatMap { albums[$0] })
    }

    /// Places the last `added` songs of `range` (just appended) in album shuffle. A song joins
    /// its album's songs in album order when some of them are in `range` or play just before
    /// it (the playing album); the songs of an album new to `range` go in together, between two
    /// albums of `range` chosen at random where their priority fits, never before the rest of
    /// the playing album.
    ///
    /// `add ""` places a whole library at once, so this reads each song's album once and
    /// rebuilds `range` in one pass, rather than scanning `range` once per added song.
    mutating func placeAddedInAlbums(_ range: Range<Int>, added: Int) {
        let firstAdded = range.upperBound - added
        var albums = albums(in: range.lowerBound..<firstAdded)
        var albumIndex: [AlbumKey: Int] = [:]
        for (index, album) in albums.enumerated() {
            if let key = albumKey(atPosition: album[0]) { albumIndex[key] = index }
        }
        let playing = range.lowerBound > 0 ? albumKey(atPosition: order[range.lowerBound - 1]) : nil
        // The playing album's songs when none of it is left to play: they go first.
        var playingRest: [Int] = []
        var joined: Set<Int> = []
        var newAlbums: [[Int]] = []
        var newAlbumIndex: [AlbumKey: Int] = [:]
        for index in firstAdded..<range.upperBound {
            let position = order[index]
            guard let key = albumKey(atPosition: position) else {
                newAlbums.append([position])
                continue
            }
            if let album = albumIndex[key] {
                albums[album].append(position)
                joined.insert(album)
            } else if key == playing {
                playingRest.append(position)
            } else if let album = newAlbumIndex[key] {
                newAlbums[album].append(position)
            } else {
                newAlbumIndex[key] = newAlbums.count
                newAlbums.append([position])
            }
        }
        for album in joined { albums[album].sort { playsEarlierInAlbum($0, $1) } }
        for album in newAlbums.indices where newAlbums[album].count > 1 {
            newAlbums[album].sort { playsEarlierInAlbum($0, $1) }
        }
        playingRest.sort { playsEarlierInAlbum($0, $1) }

        let continuesPlaying = !playingRest.isEmpty || (playing != nil && albumIndex[playing!] == 0)
        var placesByPriority: [UInt8: [Int]] = [:]
        var arriving = [[[Int]]](repeating: [], count: albums.count + 1)
        for album in newAlbums {
            let priority = items[album[0]].priority
            let places =
                placesByPriority[priority]
                ?? (0...albums.count).filter { place in
                    (place == 0 ? !continuesPlaying : items[albums[place - 1].last!].priority >= priority)
                        && (place == albums.count || items[albums[place][0]].priority <= priority)
                }
            placesByPriority[priority] = places
            arriving[places.randomElement(using: &generator) ?? albums.count].append(album)
        }
        var placed = playingRest
        placed.reserveCapacity(range.count)
        for place in arriving.indices {
            arriving[place].shuffle(using: &generator)
            for album in arriving[place] { placed.append(contentsOf: album) }
            if place < albums.count { placed.append(contentsOf: albums[place]) }
        }
        order.replaceSubrange(range, with: placed)
    }

    /// Sets the unplayed albums in order after a song's priority changed: its album moves
    /// forward (or back) past the albums of lower (or higher) priority, the others keep their
    /// places, and the rest of the playing album still plays first. A song already played
    /// comes back only when its priority rose above the current song's, as in song shuffle.
    mutating func bringAlbumForward(position: Int, oldPriority: UInt8, after current: Int?) {
        var current = current
        let index = orderIndex(ofPosition: position)
        if let now = current {
            if index == now { return }
            if index < now {
                let priority = items[position].priority
                if priority <= oldPriority || priority <= self.priority(atOrder: now) { return }
                _ = moveOrder(from: index, to: now)
                current = now - 1
            }
        }
        var start = (current ?? -1) + 1
        if let now = current, let playing = albumKey(atPosition: order[now]) {
            while start < items.count && albumKey(atPosition: order[start]) == playing { start += 1 }
        }
        let unplayed = start..<items.count
        let albums = albums(in: unplayed)
        let priorities = albums.map { album in album.map { items[$0].priority }.max() ?? 0 }
        order.replaceSubrange(unplayed, with: byDescendingPriority(priorities).flatMap { albums[$0] })
    }

    /// Brings the songs of the album of play-order `index` that come after it (in album order
    /// and in the unplayed part) to play right after it: a song chosen with `play` or playing
    /// when shuffle started goes on with the rest of its album.
    mutating func gatherAlbum(afterOrder index: Int) {
        let position = order[index]
        guard shuffleMode == .albums, let key = albumKey(atPosition: position) else { return }
        let later = ((index + 1)..<items.count).filter { place in
            albumKey(atPosition: order[place]) == key && playsEarlierInAlbum(position, order[place])
        }
        guard !later.isEmpty else { return }
        let songs = later.map { order[$0] }.sorted { playsEarlierInAlbum($0, $1) }
        for place in later.reversed() { order.remove(at: place) }
        order.insert(contentsOf: songs, at: index + 1)
    }

    /// The positions of `range` of the play order by album, each album's in play order, the
    /// albums in the order their first songs play.
    private func albums(in range: Range<Int>) -> [[Int]] {
        var albums: [[Int]] = []
        var albumIndex: [AlbumKey: Int] = [:]
        for position in order[range] {
            if let key = albumKey(atPosition: position) {
                if let index = albumIndex[key] {
                    albums[index].append(position)
                    continue
                }
                albumIndex[key] = albums.count
            }
            albums.append([position])
        }
        return albums
    }

    /// The indices of `priorities`, highest first, equal ones in their order.
    private func byDescendingPriority(_ priorities: [UInt8]) -> [Int] {
        priorities.indices.sorted { a, b in priorities[a] != priorities[b] ? priorities[a] > priorities[b] : a < b }
    }

    /// Moves the album of the song at `position` (its songs next to it in the play order) to the
    /// end of the order, and returns the song's new play-order index: when a new round is
    /// shuffled while the last album of the old one plays, the new round then starts after it.
    mutating func moveAlbumToEnd(ofPosition position: Int) -> Int {
        let index = orderIndex(ofPosition: position)
        guard let key = albumKey(atPosition: position) else { return moveOrder(from: index, to: items.count - 1) }
        var first = index
        while first > 0 && albumKey(atPosition: order[first - 1]) == key { first -= 1 }
        var end = index + 1
        while end < items.count && albumKey(atPosition: order[end]) == key { end += 1 }
        let album = Array(order[first..<end])
        order.removeSubrange(first..<end)
        order.append(contentsOf: album)
        return items.count - (end - index)
    }
}

/// What makes songs one album for album shuffle.
struct AlbumKey: Hashable {
    /// The `Album` tag.
    var album: String
    /// The `AlbumArtist` tag, empty when missing.
    var albumArtist: String
}
