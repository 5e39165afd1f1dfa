import Foundation
import GRDB
import Synchronization

/// Read-only connections of the store's own, beside the pool, for ``LibraryStore/read(_:)``:
/// every short library command (`lsinfo` of a folder, `find`, `list`, `count`) is one read.
///
/// Through `DatabasePool.read` a nine-song `lsinfo` spent almost as long in GRDB's hand-over as
/// in its queries (perf, docs/benchmarks.md "the cost of a library read"): the pool's reader
/// hand-over (a barrier queue's `sync`, a semaphore, a dispatch group, a lock), and
/// `BEGIN`/`COMMIT` parsed anew for every read, wrapped in GRDB's savepoint bookkeeping. Here a
/// read takes an idle connection from a list behind a lock, and runs its body in the same
/// deferred transaction from statements compiled once per connection: one snapshot for all
/// the body's statements, as before. As the pool's readers, the connections see every commit of
/// the writer (WAL), and their statements survive schema changes (SQLite compiles them again).
final class LibraryReaders: Sendable {
    /// How many connections are kept; a read that finds them all busy goes to the pool.
    static let maximumCount = 4

    private enum State {
        case open(idle: [DatabaseQueue], count: Int)
        case closed
    }

    private let path: String
    private let configuration: Configuration
    private let state = Mutex<State>(.open(idle: [], count: 0))

    /// Readers of the database at `path`, opened on demand with `configuration` (made
    /// read-only).
    init(path: String, configuration: Configuration) {
        self.path = path
        var configuration = configuration
        configuration.readonly = true
        configuration.label = "LibraryReaders"
        self.configuration = configuration
    }

    /// Runs `body` in a deferred transaction on an idle connection, or on one of `pool`'s
    /// readers when all are busy.
    /// - Throws: what `body` throws, a `DatabaseError`, or `SQLITE_MISUSE` once ``close()`` ran.
    func read<T>(fallback pool: DatabasePool, _ body: (Database) throws -> T) throws -> T {
        guard let connection = try take() else {
            return try pool.unsafeRead { db in try Self.inTransaction(db, body) }
        }
        var clean = false
        defer { giveBack(connection, reuse: clean) }
        return try connection.inDatabase { db in
            defer { clean = !db.isInsideTransaction }
            return try Self.inTransaction(db, body)
        }
    }

    /// Closes the idle connections; the next reads open new ones (the pool's readers do the
    /// same on `releaseMemory()`).
    func releaseMemory() {
        let dropped = state.withLock { state -> [DatabaseQueue] in
            guard case .open(let idle, let count) = state else { return [] }
            state = .open(idle: [], count: count - idle.count)
            return idle
        }
        for connection in dropped { try? connection.close() }
    }

    /// Closes the connections for good, before the pool's, so that the pool's writer closes
    /// last and SQLite folds the WAL back into the database file (``LibraryStore/close()``).
    func close() {
        let dropped = state.withLock { state -> [DatabaseQueue] in
            guard case .open(let idle, _) = state else { return [] }
            state = .closed
            return idle
        }
        for connection in dropped { try? connection.close() }
    }

    /// `body` between `BEGIN DEFERRED` and `COMMIT`, both from `db`'s statement cache: the
    /// snapshot starts at the body's first read and holds for all its statements.
    static func inTransaction<T>(_ db: Database, _ body: (Database) throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN DEFERRED TRANSACTION").execute()
        let result: T
        do {
            result = try body(db)
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        } catch {
            // A read has nothing to undo: this only ends the transaction, if the failed
            // statement has not already done so.
            if db.isInsideTransaction { try? db.cachedStatement(sql: "ROLLBACK TRANSACTION").execute() }
            throw error
        }
        return result
    }

    /// An idle connection, a new one while fewer than ``maximumCount`` are open, or `nil`.
    private func take() throws -> DatabaseQueue? {
        let taken = try state.withLock { state throws -> DatabaseQueue?? in
            switch state {
            case .closed:
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the library database is closed")
            case .open(var idle, let count):
                if let connection = idle.popLast() {
                    state = .open(idle: idle, count: count)
                    return .some(connection)
                }
                guard count < Self.maximumCount else { return .some(nil) }
                // Counted before it is opened, outside the lock; given back if that fails.
                state = .open(idle: idle, count: count + 1)
                return .none
            }
        }
        if let taken { return taken }
        do {
            return try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            state.withLock { state in
                if case .open(let idle, let count) = state { state = .open(idle: idle, count: count - 1) }
            }
            throw error
        }
    }

    /// Puts `connection` back on the idle list, or closes it when `reuse` is false (a
    /// transaction it could not end) or the readers were closed meanwhile.
    private func giveBack(_ connection: DatabaseQueue, reuse: Bool) {
        let kept = state.withLock { state -> Bool in
            guard case .open(var idle, let count) = state else { return false }
            if reuse {
                idle.append(connection)
                state = .open(idle: idle, count: count)
            } else {
                state = .open(idle: idle, count: count - 1)
            }
            return reuse
        }
        if !kept { try? connection.close() }
    }
}
