import Foundation
import GRDB
import MusicModel

/// The library database: one SQLite file in WAL mode, read concurrently by sessions and
/// written by the scanner alone.
final class LibraryStore: Sendable {
    /// The connection pool: up to four readers and the scanner's writer.
    let pool: DatabasePool
    /// Whole-library groupings held in memory for `list` and `count … group`, and what the tags
    /// outside the trigram index hold, for `any` substring searches.
    let tagColumns = TagColumnCache()
    /// The lookup of one song by its URI, beside the pool.
    let songLookup: SongLookup
    /// The connections of ``read(_:)``, beside the pool.
    let readers: LibraryReaders

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            SQLFunctions.register(in: db)
            if !db.configuration.readonly {
                // The writer's statement journals (every insert that fires the trigram
                // index's trigger writes one) stay in memory: in a temporary file they were a
                // fifth of a scan's time, in write(2) calls. Readers keep sorting big results
                // on disk.
                try db.execute(sql: "PRAGMA temp_store = MEMORY")
            }
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
        songLookup = SongLookup(path: path)
        readers = LibraryReaders(path: path, configuration: configuration)
    }

    /// Empties the writer's page cache, closes the readers (reopened on the next read),
    /// waiting for reads under way to finish, and drops the cached groupings and alphabets.
    func releaseMemory() {
        songLookup.releaseMemory()
        readers.releaseMemory()
        pool.releaseMemory()
        tagColumns.removeAll()
    }

    /// Closes every connection at shutdown, the readers first, so that the writer is the last
    /// one: SQLite then checkpoints the WAL into the database file and deletes it. Left behind,
    /// the WAL is as large as the database after a first scan, and the next start reads it
    /// back (twice the start-up time at 100,000 songs, docs/benchmarks.md). The store is
    /// unusable afterwards.
    func close() throws {
        songLookup.close()
        readers.close()
        pool.releaseMemory()
        try pool.close()
    }

    /// Runs `body` in a read transaction on a reader connection, on the calling thread: one
    /// snapshot of the database for all of its statements.
    ///
    /// Sessions run on their event loops, and a query is CPU work on pages the kernel mostly
    /// has cached: handing it to GRDB's queue and back cost two thread wake-ups, about a fifth
    /// of a 10,000-song `count group` (and 60 µs of a `stats`). The connection is one of
    /// ``readers``, not the pool's: GRDB's reader hand-over and transaction bookkeeping cost
    /// a short read as much as a third of its time (``LibraryReaders``).
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try readers.read(fallback: pool, body)
    }

    /// Runs `body` like ``read(_:)``, but on Swift's global executor when the query may test
    /// every song (``FilterSQL/mayScan(_:)``): a regular expression over 100,000 titles takes
    /// up to half a second, which on the calling event loop would hold up its other sessions.
    func read<T>(mayScan: Bool, _ body: (Database) throws -> T) async throws -> T {
        guard mayScan else { return try read(body) }
        return try await withTaskExecutorPreference(globalConcurrentExecutor) { try read(body) }
    }

    // MARK: Songs

    /// The columns a ``Song`` is built from, on `song s` joined with its `songTagList g`.
    static let songColumns = "s.uri, s.mtime, s.added, s.format, s.duration, g.tags"
    /// `song s` with its packed tags (`LEFT`: a song without a `songTagList` row is printed
    /// without tags rather than lost).
    static let songsWithTags = "song s LEFT JOIN songTagList g ON g.song = s.id"

    /// The song in a row of ``songColumns`` starting at column `first`.
    static func song(_ row: RawRow, from first: Int32 = 0) -> Song {
        Song(record(row, from: first))
    }

    /// The songs matching `condition` (on `song s`), in `order`, at most `limit`.
    static func fetchSongs(
        _ db: Database,
        where condition: SQLFragment,
        orderBy order: String = "s.ord",
        limit: Int? = nil,
        cached: Bool = false
    ) throws -> [Song] {
        let limitClause = limit.map { " LIMIT \($0)" } ?? ""
        var songs: [Song] = []
        try RawRow.forEach(
            db, "SELECT \(songColumns) FROM \(songsWithTags) WHERE \(condition.sql) ORDER BY \(order)\(limitClause)",
            arguments: condition.arguments, cached: cached
        ) { songs.append(song($0)) }
        return songs
    }

    /// The songs with these ids, in the order given.
    static func fetchSongs(_ db: Database, ids: [Int64]) throws -> [Song] {
        guard !ids.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ",")
        var byID: [Int64: Song] = [:]
        byID.reserveCapacity(ids.count)
        try RawRow.forEach(
            db, "SELECT s.id, \(songColumns) FROM \(songsWithTags) WHERE s.id IN (\(placeholders))",
            arguments: ids.map(\.databaseValue)
        ) { byID[$0.int64(0)] = song($0, from: 1) }
        return ids.compactMap { byID[$0] }
    }

    // MARK: Directories

    /// The id and row of the directory at `path`, or `nil`.
    static func directory(_ db: Database, path: String) throws -> (
        id: Int64, directory: LibraryDirectory, ord: Int64, ordEnd: Int64
    )? {
        // Raw, not through GRDB's `Row`: every `lsinfo` looks its folder up (perf: GRDB's row
        // and cursor took as long as the lookup itself).
        var found: (id: Int64, directory: LibraryDirectory, ord: Int64, ordEnd: Int64)?
        try RawRow.forEach(
            db, "SELECT id, path, mtime, ord, ordEnd FROM directory WHERE path = ?", arguments: [path.databaseValue],
            cached: true
        ) { row in
            found = (
                row.int64(0), LibraryDirectory(path: row.string(1), lastModified: row.int64(2)), row.int64(3),
                row.int64(4)
            )
        }
        return found
    }

    /// The value stored in `meta` under `key`.
    static func meta(_ db: Database, _ key: String) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = ?"), arguments: [key])
    }

    /// Marks a new state of the library: a write that changed anything calls this in its
    /// transaction, and whatever was derived from the previous state (``TagColumnCache``) is
    /// no longer used.
    static func raiseGeneration(_ db: Database) throws {
        try setMeta(db, "generation", (meta(db, "generation") ?? 0) + 1)
    }

    /// Stores `value` in `meta` under `key`.
    static func setMeta(_ db: Database, _ key: String, _ value: Int64?) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key, value])
    }
}
