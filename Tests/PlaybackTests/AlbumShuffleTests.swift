import MusicModel
import Settings
import Testing

@testable import Playback

/// A song of `album` (nil: none) by `albumArtist`, with disc and track tags; its URI names it.
func albumSong(_ album: String?, track: Int, disc: Int? = nil, albumArtist: String = "A") -> Song {
    var tags: [TagValue] = [TagValue(.albumArtist, albumArtist), TagValue(.track, "\(track)/12")]
    if let album { tags.append(TagValue(.album, album)) }
    if let disc { tags.append(TagValue(.disc, "\(disc)")) }
    let name = "\(album ?? "single")-\(disc ?? 1)-\(track)"
    return Song(uri: name, lastModified: 0, added: 0, audioFormat: nil, duration: 1, tags: tags)
}

/// The URIs in play order.
func playOrder(_ queue: Queue) -> [String] { (0..<queue.count).map { queue.entry(atOrder: $0).song.uri } }

/// The albums in play order, each once per run of its songs.
func albumRuns(_ queue: Queue) -> [String] {
    var runs: [String] = []
    for uri in playOrder(queue) {
        let album = String(uri.split(separator: "-")[0])
        if runs.last != album || album == "single" { runs.append(album) }
    }
    return runs
}

@Suite struct AlbumShuffleTests {
    /// Three albums and two songs without an album, queued interleaved and out of track order.
    func mixedQueue(seed: UInt64) -> Queue {
        var queue = Queue(maximumLength: 100, seed: seed)
        let songs = [
            albumSong("X", track: 2), albumSong("Y", track: 1), albumSong("X", track: 1),
            albumSong(nil, track: 1), albumSong("Z", track: 3, disc: 2), albumSong("Y", track: 2),
            albumSong("Z", track: 1, disc: 2), albumSong("Z", track: 9, disc: 1), albumSong(nil, track: 2),
        ]
        for song in songs { queue.append(song) }
        queue.shuffleMode = .albums
        queue.random = true
        return queue
    }

    @Test(arguments: 1...20 as ClosedRange<UInt64>)
    func albumsPlayWholeInDiscAndTrackOrder(seed: UInt64) {
        var queue = mixedQueue(seed: seed)
        queue.shuffleOrder()
        let order = playOrder(queue)
        #expect(Set(queue.order) == Set(0..<9))
        #expect(albumRuns(queue).sorted() == ["X", "Y", "Z", "single", "single"])
        for album in [["X-1-1", "X-1-2"], ["Y-1-1", "Y-1-2"], ["Z-1-9", "Z-2-1", "Z-2-3"]] {
            let start = order.firstIndex(of: album[0])!
            #expect(Array(order[start..<(start + album.count)]) == album)
        }
    }

    @Test func theAlbumsOrderDiffersBetweenShuffles() {
        let orders = Set(
            (1...20 as ClosedRange<UInt64>).map { seed -> [String] in
                var queue = mixedQueue(seed: seed)
                queue.shuffleOrder()
                return albumRuns(queue)
            })
        #expect(orders.count > 5)
    }

    @Test func albumsOfTheSameNameByOtherArtistsStayApart() {
        var queue = Queue(maximumLength: 10, seed: 3)
        queue.append(albumSong("Hits", track: 1, albumArtist: "B"))
        queue.append(albumSong("Hits", track: 1, albumArtist: "C"))
        queue.append(albumSong("Hits", track: 2, albumArtist: "B"))
        queue.shuffleMode = .albums
        queue.random = true
        queue.shuffleOrder()
        let artists = (0..<3).map { queue.entry(atOrder: $0).song.tags.first { $0.type == .albumArtist }!.value }
        #expect(artists == ["B", "B", "C"] || artists == ["C", "B", "B"])
    }

    @Test func aHigherPriorityBringsItsWholeAlbumFirst() {
        for seed in 1...10 as ClosedRange<UInt64> {
            var queue = mixedQueue(seed: seed)
            queue.shuffleOrder()
            // Z's second song on disc 2 gets a priority: all of Z plays first, in its order.
            let position = queue.entries.firstIndex { $0.song.uri == "Z-2-3" }!
            queue.setPriority(position: position, 10, after: nil)
            #expect(Array(playOrder(queue).prefix(3)) == ["Z-1-9", "Z-2-1", "Z-2-3"])
            #expect(Set(queue.order) == Set(0..<9))
        }
    }

    @Test func priorityReordersOnlyWhatHasNotPlayed() {
        var queue = mixedQueue(seed: 5)
        queue.shuffleOrder()
        let played = Array(playOrder(queue).prefix(4))
        let unplayedZ = queue.entries.firstIndex { entry in
            entry.song.uri.hasPrefix("Y") && !played.contains(entry.song.uri)
        }
        guard let position = unplayedZ else { return }
        queue.setPriority(position: position, 5, after: 3)
        #expect(Array(playOrder(queue).prefix(4)) == played)
        #expect(playOrder(queue)[4].hasPrefix("Y"))
    }

    @Test func anAddedSongJoinsItsAlbumInTrackOrder() {
        var queue = mixedQueue(seed: 9)
        queue.shuffleOrder()
        queue.append(albumSong("Y", track: 3))
        queue.shuffleOrderLastWithPriority(0..<queue.count)
        let order = playOrder(queue)
        let start = order.firstIndex(of: "Y-1-1")!
        #expect(Array(order[start..<(start + 3)]) == ["Y-1-1", "Y-1-2", "Y-1-3"])
        // A track that sorts first goes before its album-mates.
        queue.append(albumSong("X", track: 0))
        queue.shuffleOrderLastWithPriority(0..<queue.count)
        let after = playOrder(queue)
        let x = after.firstIndex(of: "X-1-0")!
        #expect(Array(after[x..<(x + 3)]) == ["X-1-0", "X-1-1", "X-1-2"])
    }

    /// As `add` of a folder does: many songs appended, then placed in one pass.
    @Test(arguments: 1...10 as ClosedRange<UInt64>)
    func songsAddedTogetherJoinTheirAlbumsOrComeAsWholeAlbums(seed: UInt64) {
        var queue = mixedQueue(seed: seed)
        queue.shuffleOrder()
        let added = [
            albumSong("W", track: 2), albumSong("Y", track: 3), albumSong(nil, track: 7),
            albumSong("W", track: 1), albumSong("V", track: 1), albumSong("Y", track: 0),
        ]
        for song in added { queue.append(song) }
        queue.placeAddedInAlbums(0..<queue.count, added: added.count)
        let order = playOrder(queue)
        #expect(Set(queue.order) == Set(0..<15))
        #expect(albumRuns(queue).sorted() == ["V", "W", "X", "Y", "Z", "single", "single", "single"])
        for album in [["W-1-1", "W-1-2"], ["Y-1-0", "Y-1-1", "Y-1-2", "Y-1-3"], ["Z-1-9", "Z-2-1", "Z-2-3"]] {
            let start = order.firstIndex(of: album[0])!
            #expect(Array(order[start..<(start + album.count)]) == album)
        }
    }

    /// The playing album (before `range`) goes on first with its added songs, whether some
    /// of it was left to play or none.
    @Test(arguments: 1...10 as ClosedRange<UInt64>)
    func songsOfThePlayingAlbumPlayNext(seed: UInt64) {
        var queue = mixedQueue(seed: seed)
        queue.shuffleOrder()
        let z = queue.orderIndex(ofPosition: queue.entries.firstIndex { $0.song.uri == "Z-1-9" }!)
        let playing = queue.moveOrder(from: z, to: 0)
        queue.gatherAlbum(afterOrder: playing)
        queue.append(albumSong("W", track: 1))
        queue.append(albumSong("Z", track: 5, disc: 2))
        queue.placeAddedInAlbums(1..<queue.count, added: 2)
        #expect(Array(playOrder(queue).prefix(4)) == ["Z-1-9", "Z-2-1", "Z-2-3", "Z-2-5"])

        // Now the last song of Z plays and nothing of Z is left: an added Z song comes next.
        let last = queue.orderIndex(ofPosition: queue.entries.firstIndex { $0.song.uri == "Z-2-5" }!)
        queue.append(albumSong("Z", track: 6, disc: 2))
        queue.append(albumSong("U", track: 1))
        queue.placeAddedInAlbums((last + 1)..<queue.count, added: 2)
        #expect(playOrder(queue)[last + 1] == "Z-2-6")
        #expect(Set(queue.order) == Set(0..<queue.count))
    }

    /// Also not inside the album whose first songs have played (the part before index 2).
    @Test func aNewAlbumLandsBetweenAlbumsNeverInsideOne() {
        for seed in 1...20 as ClosedRange<UInt64> {
            var queue = mixedQueue(seed: seed)
            queue.shuffleOrder()
            queue.append(albumSong("W", track: 1))
            queue.shuffleOrderLastWithPriority(2..<queue.count)
            let runs = albumRuns(queue)
            #expect(runs.sorted() == ["W", "X", "Y", "Z", "single", "single"])
            #expect(playOrder(queue).firstIndex(of: "W-1-1")! >= 2)
        }
    }

    @Test func aChosenSongGoesOnWithTheRestOfItsAlbum() {
        var queue = mixedQueue(seed: 11)
        queue.shuffleOrder()
        // As `play` does while stopped: the chosen song moved first, then its album gathered.
        let index = queue.orderIndex(ofPosition: queue.entries.firstIndex { $0.song.uri == "Z-2-1" }!)
        _ = queue.moveOrder(from: index, to: 0)
        queue.gatherAlbum(afterOrder: 0)
        #expect(Array(playOrder(queue).prefix(2)) == ["Z-2-1", "Z-2-3"])
        #expect(Set(queue.order) == Set(0..<9))
    }

    @Test func songShuffleIsUntouched() {
        var songs = mixedQueue(seed: 4)
        songs.shuffleMode = .songs
        songs.shuffleOrder()
        var reference = Queue(maximumLength: 100, seed: 4)
        for entry in mixedQueue(seed: 4).entries { reference.append(entry.song) }
        reference.random = true
        reference.shuffleOrder()
        #expect(playOrder(songs) == playOrder(reference))
    }
}
