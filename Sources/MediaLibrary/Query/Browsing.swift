import GRDB
import MPDProtocol

extension MediaLibrary {
    /// The song at `uri`, or `nil`.
    public func song(at uri: String) async throws -> Song? {
        try store.read { db in
            try LibraryStore.fetchSongs(db, where: SQLFragment("s.uri = ?", [uri]), cached: true).first
        }
    }

    /// One page of the walk below the directory `path`, in MPD's order: entries after walk
    /// position `cursor` (0 to start), at most about `limit` of them.
    /// - Parameters:
    ///   - recursive: the whole subtree, led by the directory itself unless it is the root
    ///     (`listall`), or only the directory's own entries (`lsinfo`).
    ///   - details: fetch songs' tags (`listallinfo`) or only their URIs (`listall`).
    /// - Returns: the entries and the cursor for the next page, or `nil` when the directory does
    ///   not exist.
    public func walk(
        _ path: String,
        recursive: Bool,
        details: Bool,
        after cursor: Int64,
        limit: Int
    ) async throws -> (entries: [LibraryEntry], next: Int64?)? {
        try store.read { db in
            guard let directory = try LibraryStore.directory(db, path: path) else { return nil }
            let start = max(cursor, directory.ord)
            // A directory's own entries are those with it as parent; its subtree is an ord range.
            let values = (recursive ? [start, directory.ordEnd] : [start, directory.ordEnd, directory.id]).map(\.databaseValue)
            var entries: [(Int64, LibraryEntry)] = []
            // MPD's recursive walk visits the directory itself first; its printer leaves out
            // only the root. Its position is before its subtree's, so it leads the first page.
            if recursive && cursor < directory.ord {
                entries.append((directory.ord, .directory(directory.directory)))
            }
            let sql = { (kind: WalkQuery.Kind) in WalkQuery.sql(kind, recursive: recursive, limit: limit) }
            // Raw rows: GRDB's `Row` copied each row with its column names, most of the time
            // of a `listall`.
            try RawRow.forEach(db, sql(.directories), arguments: values, cached: true) { row in
                entries.append((row.int64(0), .directory(LibraryDirectory(path: row.string(1), lastModified: row.int64(2)))))
            }
            try RawRow.forEach(db, sql(.playlists), arguments: values, cached: true) { row in
                entries.append((row.int64(0), .playlist(PlaylistFile(uri: row.string(1), lastModified: row.int64(2)))))
            }
            if details {
                try RawRow.forEach(db, sql(.songs), arguments: values, cached: true) { row in
                    entries.append((row.int64(0), .song(LibraryStore.song(row, from: 1))))
                }
            } else {
                try RawRow.forEach(db, sql(.songURIs), arguments: values, cached: true) { row in
                    entries.append((row.int64(0), .song(Song(uri: row.string(1), lastModified: 0, added: 0, audioFormat: nil, duration: nil, tags: []))))
                }
            }
            entries.sort { $0.0 < $1.0 }
            let page = entries.prefix(limit)
            let next = entries.count > limit || page.count == limit ? page.last?.0 : nil
            return (page.map(\.1), next)
        }
    }
}

/// The SQL of ``MediaLibrary/walk(_:recursive:details:after:limit:)``: one page of one kind of
/// entry, after a walk position (`ord > ?`) up to the directory's end (`ord <= ?`), and, unless
/// recursive, in the directory itself (`= ?`). Each form is compiled once per connection.
enum WalkQuery {
    /// What a query lists.
    enum Kind {
        case directories, playlists, songs, songURIs
    }

    /// The query for `kind`, each row led by the entry's `ord`.
    static func sql(_ kind: Kind, recursive: Bool, limit: Int) -> String {
        let (columns, table, alias, parent): (String, String, String, String)
        switch kind {
        case .directories: (columns, table, alias, parent) = ("d.ord, d.path, d.mtime", "directory d", "d", "parent")
        case .playlists: (columns, table, alias, parent) = ("p.ord, p.uri, p.mtime", "playlistFile p", "p", "directory")
        case .songs: (columns, table, alias, parent) = ("s.ord, \(LibraryStore.songColumns)", LibraryStore.songsWithTags, "s", "directory")
        case .songURIs: (columns, table, alias, parent) = ("s.ord, s.uri", "song s", "s", "directory")
        }
        let own = recursive ? "" : " AND \(alias).\(parent) = ?"
        return "SELECT \(columns) FROM \(table) WHERE \(alias).ord > ? AND \(alias).ord <= ?\(own) ORDER BY \(alias).ord LIMIT \(limit)"
    }
}
