import GRDB
import MusicModel

/// Numbers every directory, song and playlist file in the order MPD's database walk visits
/// them (`Directory::Walk` after `Directory::Sort`): a directory's songs, then its playlists,
/// then each child directory followed by everything below it. Children are sorted by path and
/// songs by album, disc, track and file name, as MPD sorts them.
enum WalkOrder {
    private struct SongKey {
        let id: Int64
        let album: String?
        let disc: Int
        let track: Int
        let name: String
    }

    /// Recomputes `ord` (and each directory's `ordEnd`) for the whole database.
    static func recompute(_ db: Database) throws {
        var children: [Int64: [(id: Int64, path: String)]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, path, parent FROM directory WHERE parent IS NOT NULL") {
            children[row[2], default: []].append((row[0], row[1]))
        }
        var songs: [Int64: [SongKey]] = [:]
        let songRows = try Row.fetchCursor(
            db,
            sql: """
                SELECT s.id, s.directory, s.uri,
                    (SELECT value FROM songTag WHERE song = s.id AND tag = ? ORDER BY id LIMIT 1),
                    (SELECT value FROM songTag WHERE song = s.id AND tag = ? ORDER BY id LIMIT 1),
                    (SELECT value FROM songTag WHERE song = s.id AND tag = ? ORDER BY id LIMIT 1)
                FROM song s
                """, arguments: [TagType.album.rawValue, TagType.disc.rawValue, TagType.track.rawValue])
        while let row = try songRows.next() {
            let uri: String = row[2]
            let key = SongKey(
                id: row[0], album: row[3], disc: TagNumber.leading(row[4]), track: TagNumber.leading(row[5]),
                name: String(uri.split(separator: "/").last ?? "")
            )
            songs[row[1], default: []].append(key)
        }
        var playlists: [Int64: [(id: Int64, uri: String)]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, directory, uri FROM playlistFile") {
            playlists[row[1], default: []].append((row[0], row[2]))
        }

        var counter: Int64 = 0
        let setSong = try db.cachedStatement(sql: "UPDATE song SET ord = ? WHERE id = ? AND ord != ?")
        let setPlaylist = try db.cachedStatement(sql: "UPDATE playlistFile SET ord = ? WHERE id = ? AND ord != ?")
        let setDirectory = try db.cachedStatement(sql: "UPDATE directory SET ord = ?, ordEnd = ? WHERE id = ?")

        func visit(_ directory: Int64) throws {
            for song in (songs[directory] ?? []).sorted(by: songPrecedes) {
                counter += 1
                try setSong.execute(arguments: [counter, song.id, counter])
            }
            for playlist in (playlists[directory] ?? []).sorted(by: { Collation.precedes($0.uri, $1.uri) }) {
                counter += 1
                try setPlaylist.execute(arguments: [counter, playlist.id, counter])
            }
            for child in (children[directory] ?? []).sorted(by: { Collation.precedes($0.path, $1.path) }) {
                counter += 1
                let start = counter
                try visit(child.id)
                try setDirectory.execute(arguments: [start, counter, child.id])
            }
        }
        try visit(1)
        try setDirectory.execute(arguments: [0, counter, 1])
    }

    /// MPD's `song_cmp`: album (a song without one first), disc, track, then file name.
    private static func songPrecedes(_ a: SongKey, _ b: SongKey) -> Bool {
        switch (a.album, b.album) {
        case (nil, .some): return true
        case (.some, nil): return false
        case (let x?, let y?) where x != y:
            let order = Collation.compare(x, y)
            if order != 0 { return order < 0 }
        default: break
        }
        let disc = compareNumbers(a.disc, b.disc)
        if disc != 0 { return disc < 0 }
        let track = compareNumbers(a.track, b.track)
        if track != 0 { return track < 0 }
        return Collation.precedes(a.name, b.name)
    }

    /// MPD's `compare_number_string`: a missing or non-positive number sorts first.
    private static func compareNumbers(_ a: Int, _ b: Int) -> Int {
        if a <= 0 { return b <= 0 ? 0 : -1 }
        if b <= 0 { return 1 }
        return a < b ? -1 : (a > b ? 1 : 0)
    }
}

/// The order MPD's ICU collation gives names: case-insensitively first, then by bytes.
enum Collation {
    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    static func compare(_ a: String, _ b: String) -> Int {
        let foldedA = TextFolding.fold(a)
        let foldedB = TextFolding.fold(b)
        if foldedA != foldedB { return foldedA.utf8.lexicographicallyPrecedes(foldedB.utf8) ? -1 : 1 }
        if a == b { return 0 }
        return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
    }

    /// Whether `a` sorts before `b`.
    static func precedes(_ a: String, _ b: String) -> Bool { compare(a, b) < 0 }
}
