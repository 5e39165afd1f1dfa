import GRDB
package import MusicModel

extension Library {
    /// The song at `uri`, or `nil`. A lookup of one row by its unique key, read on the
    /// caller's thread as any read that cannot scan the library is: synchronous, so that a
    /// command that needs nothing else (`addid`) is called without an async frame
    /// (``SongLookup``).
    package func song(at uri: String) throws -> Song? {
        try store.songLookup.song(at: uri)
    }

    /// One page of the walk below the directory `path`, in MPD's order: entries after walk
    /// position `cursor` (0 to start), at most `limit` of them.
    /// - Parameters:
    ///   - recursive: the whole subtree, led by the directory itself unless it is the root
    ///     (`listall`), or only the directory's own entries (`lsinfo`).
    ///   - details: fetch songs' tags (`listallinfo`) or only their URIs (`listall`).
    /// - Returns: the entries and the cursor for the next page, or `nil` when the directory does
    ///   not exist.
    package func walk(
        _ path: String,
        recursive: Bool,
        details: Bool,
        after cursor: Int64,
        limit: Int
    ) async throws -> (entries: [LibraryEntry], next: Int64?)? {
        try store.read { db in
            var entries: [LibraryEntry] = []
            let walked = try Self.forEachWalkRow(
                db, path, recursive: recursive, details: details, after: cursor, limit: limit,
                full: { false }
            ) { row in
                switch row {
                case .directory(let path, let lastModified):
                    entries.append(
                        .directory(
                            LibraryDirectory(path: String(decoding: path, as: UTF8.self), lastModified: lastModified)))
                case .playlist(let uri, let lastModified):
                    entries.append(
                        .playlist(PlaylistFile(uri: String(decoding: uri, as: UTF8.self), lastModified: lastModified)))
                case .song(let record):
                    entries.append(.song(Song(record)))
                case .songURI(let uri):
                    entries.append(
                        .song(
                            Song(
                                uri: String(decoding: uri, as: UTF8.self), lastModified: 0, added: 0,
                                audioFormat: nil, duration: nil, tags: [])))
                }
            }
            return walked.found ? (entries, walked.next) : nil
        }
    }

    /// ``walk(_:recursive:details:after:limit:)`` for printing: `body` writes each entry into
    /// `sink` straight from SQLite's row, with no ``Song`` or string built. The page also ends
    /// once the sink holds `maximumBytes`: entries range from a short name to a song block of
    /// dozens of lines.
    /// - Returns: whether the directory exists, and the cursor for the next page (`nil` at the
    ///   end).
    package func writeWalk<Sink: RecordSink>(
        _ path: String,
        recursive: Bool,
        details: Bool,
        after cursor: Int64,
        limit: Int,
        maximumBytes: Int,
        into sink: inout Sink,
        _ body: (WalkRow, inout Sink) -> Void
    ) async throws -> (found: Bool, next: Int64?) {
        try store.read { db in
            try Self.forEachWalkRow(
                db, path, recursive: recursive, details: details, after: cursor, limit: limit,
                full: { sink.count >= maximumBytes }
            ) { row in
                body(row, &sink)
            }
        }
    }

    /// Merges the walk's three queries (directories, playlists, songs; each in walk order) into
    /// one page in walk order, calling `body` with each row, until `limit` rows or `full()`.
    /// Returns whether there is a directory at `path`, and the position to go on from (`nil`
    /// at the end).
    private static func forEachWalkRow(
        _ db: Database,
        _ path: String,
        recursive: Bool,
        details: Bool,
        after cursor: Int64,
        limit: Int,
        full: () -> Bool,
        _ body: (WalkRow) throws -> Void
    ) throws -> (found: Bool, next: Int64?) {
        guard let directory = try LibraryStore.directory(db, path: path) else { return (false, nil) }
        var count = 0
        var last: Int64?
        // MPD's recursive walk visits the directory itself first; its printer leaves out only
        // the root. Its position is before its subtree's, so it leads the first page.
        if recursive && cursor < directory.ord && limit > 0 {
            var own = directory.directory.path
            try own.withUTF8 {
                try body(.directory(path: UnsafeRawBufferPointer($0), lastModified: directory.directory.lastModified))
            }
            count = 1
            last = directory.ord
        }
        // A directory's own entries are those with it as parent; its subtree is an ord range.
        let start = max(cursor, directory.ord)
        let values = (recursive ? [start, directory.ordEnd] : [start, directory.ordEnd, directory.id]).map(
            \.databaseValue)
        let kinds: [WalkQuery.Kind] = [.directories, .playlists, details ? .songs : .songURIs]
        var queries = try kinds.map { try RawCursor(db, WalkQuery.sql($0, recursive: recursive, limit: limit), values) }
        defer { for query in queries { query.reset() } }
        var stopped = false
        while count < limit {
            if full() {
                stopped = true
                break
            }
            // The query whose current row comes first in the walk.
            var next: Int?
            for index in queries.indices where queries[index].hasRow {
                if next.map({ queries[index].row.int64(0) < queries[$0].row.int64(0) }) ?? true { next = index }
            }
            guard let index = next else { break }
            let row = queries[index].row
            switch kinds[index] {
            case .directories: try body(.directory(path: row.blob(1), lastModified: row.int64(2)))
            case .playlists: try body(.playlist(uri: row.blob(1), lastModified: row.int64(2)))
            case .songs: try body(.song(LibraryStore.record(row, from: 1)))
            case .songURIs: try body(.songURI(row.blob(1)))
            }
            count += 1
            last = row.int64(0)
            try queries[index].step()
        }
        return (true, count == limit || stopped ? last : nil)
    }
}

/// One entry of a walk as SQLite holds it: the byte views (UTF-8) are valid only inside the
/// call that receives them.
package enum WalkRow {
    /// A directory: its path and modification time.
    case directory(path: UnsafeRawBufferPointer, lastModified: Int64)
    /// A playlist file: its URI and modification time.
    case playlist(uri: UnsafeRawBufferPointer, lastModified: Int64)
    /// A song with its tags (a walk with details).
    case song(SongRecord)
    /// A song's URI (a walk without details).
    case songURI(UnsafeRawBufferPointer)
}

/// The SQL of ``Library/walk(_:recursive:details:after:limit:)``: one page of one kind of
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
        case .songs:
            (columns, table, alias, parent) = (
                "s.ord, \(LibraryStore.songColumns)", LibraryStore.songsWithTags, "s", "directory"
            )
        case .songURIs: (columns, table, alias, parent) = ("s.ord, s.uri", "song s", "s", "directory")
        }
        let own = recursive ? "" : " AND \(alias).\(parent) = ?"
        return
            "SELECT \(columns) FROM \(table) WHERE \(alias).ord > ? AND \(alias).ord <= ?\(own) ORDER BY \(alias).ord LIMIT \(limit)"
    }
}
