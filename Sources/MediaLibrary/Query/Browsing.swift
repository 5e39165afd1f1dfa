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
            func scope(_ alias: String, parent column: String) -> SQLFragment {
                let range = "\(alias).ord > ? AND \(alias).ord <= ?"
                if recursive { return SQLFragment(range, [start, directory.ordEnd]) }
                return SQLFragment("\(range) AND \(alias).\(column) = ?", [start, directory.ordEnd, directory.id])
            }
            // The SQL differs only by `recursive`, `details` and `limit`: its few forms stay
            // compiled on the connection (compiling them took most of a small `lsinfo`).
            var entries: [(Int64, LibraryEntry)] = []
            // MPD's recursive walk visits the directory itself first; its printer leaves out
            // only the root. Its position is before its subtree's, so it leads the first page.
            if recursive && cursor < directory.ord {
                entries.append((directory.ord, .directory(directory.directory)))
            }
            let directories = scope("d", parent: "parent")
            for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT d.ord, d.path, d.mtime FROM directory d WHERE \(directories.sql) ORDER BY d.ord LIMIT \(limit)"),
                                        arguments: StatementArguments(directories.arguments)) {
                entries.append((row[0], .directory(LibraryDirectory(path: row[1], lastModified: row[2]))))
            }
            let playlists = scope("p", parent: "directory")
            for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT p.ord, p.uri, p.mtime FROM playlistFile p WHERE \(playlists.sql) ORDER BY p.ord LIMIT \(limit)"),
                                        arguments: StatementArguments(playlists.arguments)) {
                entries.append((row[0], .playlist(PlaylistFile(uri: row[1], lastModified: row[2]))))
            }
            let songCondition = scope("s", parent: "directory")
            if details {
                try RawRow.forEach(db, """
                    SELECT s.ord, \(LibraryStore.songColumns) FROM \(LibraryStore.songsWithTags)
                    WHERE \(songCondition.sql) ORDER BY s.ord LIMIT \(limit)
                    """, arguments: songCondition.arguments, cached: true) { row in
                    entries.append((row.int64(0), .song(LibraryStore.song(row, from: 1))))
                }
            } else {
                for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT s.ord, s.uri FROM song s WHERE \(songCondition.sql) ORDER BY s.ord LIMIT \(limit)"),
                                            arguments: StatementArguments(songCondition.arguments)) {
                    entries.append((row[0], .song(Song(uri: row[1], lastModified: 0, added: 0, audioFormat: nil, duration: nil, tags: []))))
                }
            }
            entries.sort { $0.0 < $1.0 }
            let page = entries.prefix(limit)
            let next = entries.count > limit || page.count == limit ? page.last?.0 : nil
            return (page.map(\.1), next)
        }
    }
}
