import Foundation
import GRDB
import MPDProtocol

/// The library database: one SQLite file in WAL mode, read concurrently by sessions and
/// written by the scanner alone.
final class LibraryStore: Sendable {
    /// The connection pool; GRDB runs its blocking SQLite calls on its own queues.
    let pool: DatabasePool

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            SQLFunctions.register(in: db)
        }
        configuration.busyMode = .timeout(10)
        // Sessions read in parallel; more readers than cores only adds memory.
        configuration.maximumReaderCount = 4
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        try Schema.migrator.migrate(pool)
    }

    // MARK: Songs

    /// The columns of `song` a ``Song`` is built from, then its tags, from a join ordered so
    /// that each song's rows are adjacent and its tags in the order they were stored.
    static let songColumns = "s.id, s.uri, s.mtime, s.added, s.format, s.duration, t.tag, t.value"

    /// Builds songs, with their ids, from rows of ``songColumns``.
    static func songs(from cursor: RowCursor) throws -> [(id: Int64, song: Song)] {
        var songs: [(id: Int64, song: Song)] = []
        while let row = try cursor.next() {
            let id: Int64 = row[0]
            if id != songs.last?.id {
                let song = Song(
                    uri: row[1], lastModified: row[2], added: row[3], audioFormat: row[4], duration: row[5], tags: []
                )
                songs.append((id, song))
            }
            if let tagNumber: Int = row[6], let tag = TagType(rawValue: tagNumber) {
                songs[songs.count - 1].song.tags.append(TagValue(tag, row[7]))
            }
        }
        return songs
    }

    /// The songs matching `condition` (on `song s`), in `order`, at most `limit`.
    static func fetchSongs(
        _ db: Database,
        where condition: SQLFragment,
        orderBy order: String = "s.ord",
        limit: Int? = nil
    ) throws -> [Song] {
        let limitClause = limit.map { " LIMIT \($0)" } ?? ""
        let sql = """
            SELECT \(songColumns) FROM (SELECT * FROM song s WHERE \(condition.sql) ORDER BY \(order)\(limitClause)) s
            LEFT JOIN songTag t ON t.song = s.id ORDER BY \(order), t.id
            """
        let cursor = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(condition.arguments))
        return try songs(from: cursor).map(\.song)
    }

    /// The songs with these ids, in the order given.
    static func fetchSongs(_ db: Database, ids: [Int64]) throws -> [Song] {
        guard !ids.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ",")
        let sql = """
            SELECT \(songColumns) FROM song s LEFT JOIN songTag t ON t.song = s.id
            WHERE s.id IN (\(placeholders)) ORDER BY s.id, t.id
            """
        let cursor = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(ids))
        let byID = Dictionary(try songs(from: cursor), uniquingKeysWith: { first, _ in first })
        return ids.compactMap { byID[$0] }
    }

    // MARK: Directories

    /// The id and row of the directory at `path`, or `nil`.
    static func directory(_ db: Database, path: String) throws -> (id: Int64, directory: LibraryDirectory, ord: Int64, ordEnd: Int64)? {
        guard let row = try Row.fetchOne(db, sql: "SELECT id, path, mtime, ord, ordEnd FROM directory WHERE path = ?", arguments: [path])
        else { return nil }
        return (row[0], LibraryDirectory(path: row[1], lastModified: row[2]), row[3], row[4])
    }

    /// The value stored in `meta` under `key`.
    static func meta(_ db: Database, _ key: String) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
    }

    /// Stores `value` in `meta` under `key`.
    static func setMeta(_ db: Database, _ key: String, _ value: Int64?) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key, value])
    }
}

