import GRDB
import GRDBSQLite
import MusicModel
import Synchronization

/// Finds one song by its URI on a read-only SQLite connection of its own, with one compiled
/// statement: the lookup of `addid`, `add FILE` and every command that names one song.
///
/// Through GRDB's pool the same lookup cost about four times the query itself (perf, a loop of
/// `addid`/`deleteid` at a 10,000-song queue): taking a reader out of the pool (a key path
/// built at run time per call), a dispatch queue's `sync`, and `BEGIN`/`COMMIT` statements
/// compiled for each read. One statement needs no transaction: SQLite reads it in one snapshot
/// and ends that when the statement is reset. The connection is shared behind a lock, since a
/// lookup takes microseconds; each one more would keep a page cache of its own.
final class SongLookup: Sendable {
    /// The statement: ``LibraryStore/songColumns`` of the song with this URI.
    static let sql =
        "SELECT \(LibraryStore.songColumns) FROM \(LibraryStore.songsWithTags) WHERE s.uri = ?"
    /// The page cache of the connection, in KiB: the pages of one lookup's path down two
    /// indexes and two tables, and the upper levels of those kept between lookups.
    static let cacheKiB = 256

    private enum State {
        case unopened
        case open(Connection)
        case closed
    }

    private let path: String
    private let state = Mutex<State>(.unopened)

    /// A lookup in the database at `path`, which it opens on the first lookup.
    init(path: String) {
        self.path = path
    }

    /// The song at `uri`, or `nil`.
    /// - Throws: a `DatabaseError` when the database cannot be read, or once ``close()`` ran.
    func song(at uri: String) throws -> Song? {
        try state.withLock { state throws -> Song? in
            switch state {
            case .open(let connection):
                return try connection.song(at: uri)
            case .unopened:
                let connection = try Connection(path: path)
                state = .open(connection)
                return try connection.song(at: uri)
            case .closed:
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the library database is closed")
            }
        }
    }

    /// Gives back the connection's page cache (the pool's readers do the same).
    func releaseMemory() {
        state.withLock { state in
            if case .open(let connection) = state { connection.releaseMemory() }
        }
    }

    /// Closes the connection for good, before the pool's, so that the pool's writer closes
    /// last and SQLite folds the WAL back into the database file.
    func close() {
        state.withLock { state in state = .closed }
    }

    /// The connection and its statement; closed when dropped.
    private final class Connection {
        private let handle: OpaquePointer
        private let statement: OpaquePointer

        init(path: String) throws {
            var handle: OpaquePointer?
            // No mutex of SQLite's own: the lookup's lock serializes every use.
            let opened = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
            guard opened == SQLITE_OK, let handle else {
                let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
                sqlite3_close_v2(handle)
                throw DatabaseError(resultCode: ResultCode(rawValue: opened), message: message)
            }
            // As the pool's connections wait (`busyMode`), for the rare moment a checkpoint
            // restarts the WAL.
            sqlite3_busy_timeout(handle, 10_000)
            sqlite3_exec(handle, "PRAGMA cache_size = -\(SongLookup.cacheKiB)", nil, nil, nil)
            var statement: OpaquePointer?
            let prepared = sqlite3_prepare_v3(
                handle, SongLookup.sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
            guard prepared == SQLITE_OK, let statement else {
                let message = String(cString: sqlite3_errmsg(handle))
                sqlite3_close_v2(handle)
                throw DatabaseError(resultCode: ResultCode(rawValue: prepared), message: message, sql: SongLookup.sql)
            }
            self.handle = handle
            self.statement = statement
        }

        deinit {
            sqlite3_finalize(statement)
            sqlite3_close_v2(handle)
        }

        func song(at uri: String) throws -> Song? {
            var uri = uri
            return try uri.withUTF8 { bytes in
                // Reset at once: a statement left on its row would hold its snapshot and keep
                // every checkpoint from passing it.
                defer {
                    sqlite3_reset(statement)
                    sqlite3_clear_bindings(statement)
                }
                // Bound without a copy (no destructor: SQLITE_STATIC): the bytes outlive the step.
                _ = bytes.withMemoryRebound(to: CChar.self) {
                    sqlite3_bind_text(statement, 1, $0.baseAddress, Int32($0.count), nil)
                }
                switch sqlite3_step(statement) {
                case SQLITE_ROW: return LibraryStore.song(RawRow(handle: statement))
                case SQLITE_DONE: return nil
                case let code:
                    throw DatabaseError(
                        resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(handle)),
                        sql: SongLookup.sql)
                }
            }
        }

        func releaseMemory() {
            sqlite3_db_release_memory(handle)
        }
    }
}
