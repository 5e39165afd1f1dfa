import Foundation
import GRDB

/// The sticker database (`sticker_file`): name/value pairs that clients attach to songs,
/// stored playlists, tag values and filters. The seed's "user-defined properties" (rating,
/// play count, last played).
///
/// The file has MPD's schema, table `sticker(type, uri, name, value)` with a unique index on
/// `(type, uri, name)`, and nothing else, so that the `sticker.sql` of an MPD installation can
/// be pointed at directly and still be read by MPD afterwards. For the same reason it is opened
/// as a single connection in SQLite's default rollback-journal mode rather than in WAL mode,
/// which would change the file's format for every later reader; sticker reads and writes are a
/// few rows each, so one connection is no bottleneck.
///
/// The store knows nothing of the music database: callers check that a song, playlist or tag
/// value exists before they attach a sticker to it.
package final class StickerStore: Sendable {
    let queue: DatabaseQueue

    /// MPD's own statements (`sticker/Database.cxx`): created if missing, never altered.
    static let schema = """
        CREATE TABLE IF NOT EXISTS sticker(
          type VARCHAR NOT NULL,
          uri VARCHAR NOT NULL,
          name VARCHAR NOT NULL,
          value VARCHAR NOT NULL
        );
        CREATE UNIQUE INDEX IF NOT EXISTS sticker_value ON sticker(type, uri, name);
        """

    /// Opens (creating if needed) the sticker database at `path`.
    /// - Throws: when the file cannot be opened or is not a SQLite database.
    package init(path: String) throws {
        var configuration = Configuration()
        // MPD may hold the same file open; wait for its writes instead of failing.
        configuration.busyMode = .timeout(5)
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { db in try db.execute(sql: Self.schema) }
    }

    // MARK: Reading

    /// The value of one sticker, or `nil` when there is none.
    package func value(type: String, uri: String, name: String) async throws -> String? {
        try await queue.read { db in
            try String.fetchOne(
                db, sql: "SELECT value FROM sticker WHERE type=? AND uri=? AND name=?",
                arguments: [type, uri, name])
        }
    }

    /// Every sticker of one object, by name in byte order (MPD prints them from a `std::map`).
    package func list(type: String, uri: String) async throws -> [(name: String, value: String)] {
        try await queue.read { db in
            try Row.fetchAll(
                db, sql: "SELECT name, value FROM sticker WHERE type=? AND uri=? ORDER BY name",
                arguments: [type, uri]
            ).map { ($0[0], $0[1]) }
        }
    }

    /// The distinct sticker names, sorted (`stickernames`).
    package func names() async throws -> [String] {
        try await queue.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT name FROM sticker ORDER BY name")
        }
    }

    /// The distinct name and type pairs, by name and then type, of one type or of all
    /// (`stickernamestypes`).
    package func namesAndTypes(type: String?) async throws -> [(name: String, type: String)] {
        try await queue.read { db in
            let filter = type == nil ? "" : "WHERE type=?"
            let arguments: StatementArguments = type.map { [$0] } ?? []
            return try Row.fetchAll(
                db, sql: "SELECT DISTINCT name, type FROM sticker \(filter) ORDER BY name, type", arguments: arguments
            ).map { ($0[0], $0[1]) }
        }
    }

    /// The stickers named `query.name` of objects whose URI starts with `query.uriPrefix`,
    /// filtered and sorted as the query says (`sticker find`).
    package func find(_ query: StickerQuery) async throws -> [(uri: String, value: String)] {
        try await queue.read { db in try Self.find(query, db) }
    }

    // MARK: Writing

    /// Sets a sticker, replacing its value (`sticker set`).
    /// - Returns: whether the database changed: an empty name changes nothing (the `sticker`
    ///   command refuses one before it gets here, as MPD 0.24 does).
    @discardableResult
    package func set(type: String, uri: String, name: String, value: String) async throws -> Bool {
        try await writing { db in try Self.set(type: type, uri: uri, name: name, value: value, db) }
    }

    /// Adds `delta` to a sticker's value, or creates it with the value `delta` (the play
    /// statistics' counters). SQLite does the sum: a value that is not a number counts as 0.
    /// - Returns: whether the database changed (not for an empty name).
    @discardableResult
    package func add(_ delta: Int64, type: String, uri: String, name: String) async throws -> Bool {
        try await writing { db in try Self.add(delta, type: type, uri: uri, name: name, db) }
    }

    /// `sticker inc` (`.increment`) or `sticker dec` (`.decrement`) as MPD 0.24 runs them, with
    /// its statements (`STICKER_SQL_INC` and `STICKER_SQL_DEC`): a missing sticker is created
    /// with `operand` as it is, for `dec` too, and an existing one becomes `value + operand` or
    /// `value - operand` as SQLite computes it, where text that is no number counts as 0. MPD
    /// checks neither the operand nor the name; callers refuse an empty name first.
    package func adjust(
        _ direction: StickerAdjustment, by operand: String, type: String, uri: String,
        name: String
    ) async throws {
        try await writing { db in try Self.adjust(direction, by: operand, type: type, uri: uri, name: name, db) }
    }

    /// Deletes one sticker, or with `name` `nil` every sticker of the object (`sticker delete`).
    /// - Returns: whether anything was deleted.
    package func delete(type: String, uri: String, name: String?) async throws -> Bool {
        try await writing { db in
            if let name {
                try db.execute(
                    sql: "DELETE FROM sticker WHERE type=? AND uri=? AND name=?", arguments: [type, uri, name])
            } else {
                try db.execute(sql: "DELETE FROM sticker WHERE type=? AND uri=?", arguments: [type, uri])
            }
            return db.changesCount > 0
        }
    }

    /// Runs a write of a sticker command. SQLite's failure (a full disk) is given as
    /// ``LibraryError/stickerWriteFailed(_:)`` with SQLite's own message, as MPD answers it;
    /// GRDB's description would also show the statement and its arguments.
    private func writing<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await queue.write(body)
        } catch let error as DatabaseError {
            throw LibraryError.stickerWriteFailed(error.message ?? "SQLite error \(error.resultCode.rawValue)")
        }
    }

    /// Runs several changes in one transaction, from a thread that may block (play statistics).
    package func writeBlocking<T>(_ body: (StickerWriter) throws -> T) throws -> T {
        try queue.write { db in try body(StickerWriter(db: db)) }
    }

    /// The objects of one type that have stickers (for the cleanup after an update).
    func uris(type: String) throws -> [String] {
        try queue.read { db in
            try String.fetchAll(db, sql: "SELECT DISTINCT uri FROM sticker WHERE type=?", arguments: [type])
        }
    }

    /// The types of every sticker (for the cleanup after an update).
    func types() throws -> [String] {
        try queue.read { db in try String.fetchAll(db, sql: "SELECT DISTINCT type FROM sticker") }
    }

    /// Deletes every sticker of these objects of one type, in one transaction.
    /// - Returns: how many stickers were deleted.
    func deleteAll(type: String, uris: [String]) throws -> Int {
        guard !uris.isEmpty else { return 0 }
        return try queue.write { db in
            var deleted = 0
            let statement = try db.cachedStatement(sql: "DELETE FROM sticker WHERE type=? AND uri=?")
            for uri in uris {
                try statement.execute(arguments: [type, uri])
                deleted += db.changesCount
            }
            return deleted
        }
    }

    // MARK: Statements

    static func set(type: String, uri: String, name: String, value: String, _ db: Database) throws -> Bool {
        guard !name.isEmpty else { return false }
        try db.execute(
            sql: "UPDATE sticker SET value=? WHERE type=? AND uri=? AND name=?", arguments: [value, type, uri, name])
        if db.changesCount == 0 {
            try db.execute(
                sql: "INSERT INTO sticker(type, uri, name, value) VALUES(?, ?, ?, ?)",
                arguments: [type, uri, name, value])
        }
        return true
    }

    static func add(_ delta: Int64, type: String, uri: String, name: String, _ db: Database) throws -> Bool {
        guard !name.isEmpty else { return false }
        try adjust(.increment, by: String(delta), type: type, uri: uri, name: name, db)
        return true
    }

    /// MPD's `STICKER_SQL_INC` and `STICKER_SQL_DEC`, the one statement both `sticker inc`/`dec`
    /// and the play statistics' counters run.
    static func adjust(
        _ direction: StickerAdjustment, by operand: String, type: String, uri: String, name: String,
        _ db: Database
    ) throws {
        let sign = direction == .increment ? "+" : "-"
        try db.execute(
            sql: "INSERT INTO sticker(type, uri, name, value) VALUES(?, ?, ?, ?) "
                + "ON CONFLICT(type, uri, name) DO UPDATE SET value = value \(sign) ?",
            arguments: [type, uri, name, operand, operand])
    }

    static func find(_ query: StickerQuery, _ db: Database) throws -> [(uri: String, value: String)] {
        // The prefix is compared bytewise: MPD's `uri LIKE (? || '%')` would also let `_` and
        // `%` in a directory name match any character and ignore ASCII case.
        var sql = "SELECT uri, value FROM sticker WHERE type=? AND name=? AND substr(uri, 1, length(?)) = ?"
        var arguments: StatementArguments = [query.type, query.name, query.uriPrefix, query.uriPrefix]
        if let condition = query.condition {
            sql += " AND " + condition.comparison.sql
            let operand = condition.operand
            arguments += condition.comparison == .startsWith ? [operand, operand] : [operand]
        }
        if let sort = query.sort {
            sql += " ORDER BY " + sort.key.sql + (sort.descending ? " DESC" : "") + ", uri"
        } else {
            // The order MPD's statement gets from the unique index: by URI.
            sql += " ORDER BY uri"
        }
        return try Row.fetchAll(db, sql: sql, arguments: arguments).map { ($0[0], $0[1]) }
    }
}

/// Sticker changes inside one transaction of ``StickerStore/writeBlocking(_:)``.
package struct StickerWriter {
    let db: Database

    /// As ``StickerStore/set(type:uri:name:value:)``.
    @discardableResult
    package func set(type: String, uri: String, name: String, value: String) throws -> Bool {
        try StickerStore.set(type: type, uri: uri, name: name, value: value, db)
    }

    /// As ``StickerStore/add(_:type:uri:name:)``.
    @discardableResult
    package func add(_ delta: Int64, type: String, uri: String, name: String) throws -> Bool {
        try StickerStore.add(delta, type: type, uri: uri, name: name, db)
    }
}

/// Which way ``StickerStore/adjust(_:by:type:uri:name:)`` moves a value.
package enum StickerAdjustment: Sendable {
    /// `sticker inc`.
    case increment
    /// `sticker dec`.
    case decrement
}
