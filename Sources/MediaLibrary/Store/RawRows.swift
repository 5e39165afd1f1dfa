import GRDB
import GRDBSQLite

/// The current row of a statement stepped by ``RawRow/forEach(_:_:arguments:_:)``: its columns
/// read straight from SQLite.
///
/// The queries that visit every song (grouping the library, printing thousands of songs) spend
/// a large part of their time per row; GRDB's cursors and `Row` values add reference counting
/// and generic conversions to each one, which this avoids.
struct RawRow {
    /// The SQLite statement, positioned on the row.
    let handle: SQLiteStatement

    /// An integer column (0 for `NULL`).
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// A real column, `nil` for `NULL`.
    func double(_ column: Int32) -> Double? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_double(handle, column)
    }

    /// A text column, `nil` for `NULL`.
    func text(_ column: Int32) -> String? {
        guard let base = sqlite3_column_text(handle, column) else { return nil }
        return String(
            decoding: UnsafeBufferPointer(start: base, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }

    /// Whether a column is `NULL`.
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// A text column that is never `NULL`.
    func string(_ column: Int32) -> String { text(column) ?? "" }

    /// The bytes of a blob column, without copying: valid until the statement steps again.
    /// Empty for `NULL`.
    /// Text columns give their UTF-8 bytes.
    func blob(_ column: Int32) -> UnsafeRawBufferPointer {
        guard let base = sqlite3_column_blob(handle, column) else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: base, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// Runs `sql` with `arguments`, calling `body` with each result row.
    /// - Parameters:
    ///   - cached: keep the compiled statement on the connection for the next run of the same
    ///     SQL (for fixed SQL run often; not for SQL holding values or varying lists).
    ///   - visitor: a ``RowVisitor`` bound to the first parameter, for `mpd_visit`.
    /// - Throws: the SQLite error that ended the statement, or `body`'s.
    static func forEach(
        _ db: Database,
        _ sql: String,
        arguments: [DatabaseValue] = [],
        cached: Bool = false,
        firstPointer visitor: UnsafeMutableRawPointer? = nil,
        _ body: (RawRow) throws -> Void
    ) throws {
        let statement = try cached ? db.cachedStatement(sql: sql) : db.makeStatement(sql: sql)
        try bind(arguments, to: statement, db)
        let handle = statement.sqliteStatement
        if let visitor {
            sqlite3_bind_pointer(handle, 1, visitor, RowVisitor.pointerType, nil)
        }
        defer {
            sqlite3_reset(handle)
            // A cached statement must not keep the visitor's address past this run.
            if visitor != nil { sqlite3_bind_null(handle, 1) }
        }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: sql)
            }
            try body(RawRow(handle: handle))
        }
    }

    /// Binds `values` to the parameters of `statement`, in order, straight through SQLite.
    ///
    /// GRDB's `StatementArguments(_:)` maps an array through a key path that the runtime
    /// instantiates on every call, and `setArguments` then copies the values to check them:
    /// together about a twentieth of the server's CPU for a small `lsinfo` (perf). Statements
    /// bound here are stepped only here and in ``RawCursor``, never by GRDB, so its record of
    /// their arguments does not matter.
    /// - Throws: a `DatabaseError` when the number of values is not the statement's.
    static func bind(_ values: [DatabaseValue], to statement: Statement, _ db: Database) throws {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        guard values.count == Int(sqlite3_bind_parameter_count(handle)) else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE,
                message: "\(values.count) values for \(sqlite3_bind_parameter_count(handle)) parameters",
                sql: statement.sql)
        }
        for (index, value) in zip(Int32(1)..., values) {
            let code = value.bind(to: handle, at: index)
            guard code == SQLITE_OK else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
            }
        }
    }
}

/// A compiled statement stepped by hand, for reading several queries side by side (a walk
/// merges three): ``row`` is the current row while ``hasRow``.
struct RawCursor {
    private let db: Database
    private let statement: Statement
    /// Whether the statement stands on a row.
    private(set) var hasRow = false

    /// Runs the connection's cached statement for `sql` with `arguments` up to its first row.
    init(_ db: Database, _ sql: String, _ arguments: [DatabaseValue]) throws {
        self.db = db
        statement = try db.cachedStatement(sql: sql)
        try RawRow.bind(arguments, to: statement, db)
        try step()
    }

    /// The current row: valid until the next ``step()``.
    var row: RawRow { RawRow(handle: statement.sqliteStatement) }

    /// Moves to the next row; ``hasRow`` is `false` past the last.
    /// - Throws: the SQLite error that ended the statement.
    mutating func step() throws {
        let code = sqlite3_step(statement.sqliteStatement)
        guard code == SQLITE_ROW || code == SQLITE_DONE else {
            hasRow = false
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
        }
        hasRow = code == SQLITE_ROW
    }

    /// Ends the run, so that the cached statement holds no read open.
    func reset() { sqlite3_reset(statement.sqliteStatement) }
}
