import GRDB
import GRDBSQLite
package import MusicModel

/// A song's stored fields as SQLite holds them, for printing without building a ``Song``.
///
/// The byte views point into SQLite's row and are valid only inside the closure that receives
/// the record: printing thousands of songs (`find`, `search`) then costs no string or array per
/// song and field.
package struct SongRecord {
    /// The URI's UTF-8 bytes.
    package let uri: UnsafeRawBufferPointer
    /// When the file was last modified, Unix time.
    package let lastModified: Int64
    /// When the song entered the database, Unix time.
    package let added: Int64
    /// The audio format's bytes (`44100:16:2`); `nil` when unknown.
    package let audioFormat: UnsafeRawBufferPointer?
    /// The duration in seconds, when known.
    package let duration: Double?
    /// The packed tags (PackedTags), in stored order.
    let packedTags: UnsafeRawBufferPointer

    /// Calls `body` with each tag value's type and UTF-8 bytes, in stored order.
    package func forEachTag(_ body: (TagType, UnsafeRawBufferPointer) -> Void) {
        PackedTagList.forEachEntry(in: packedTags) { number, _, value in
            if let type = TagType(rawValue: number) { body(type, value) }
        }
    }
}

extension Song {
    /// The song a record holds, copied out of SQLite's row.
    init(_ record: SongRecord) {
        self.init(
            uri: String(decoding: record.uri, as: UTF8.self), lastModified: record.lastModified, added: record.added,
            audioFormat: record.audioFormat.map { String(decoding: $0, as: UTF8.self) }, duration: record.duration,
            packedTags: PackedTagList(copying: record.packedTags)
        )
    }
}

extension Library {
    /// Runs `body` on the records of the songs with these ids, in the order given (ids with no
    /// song are skipped), inside one read, with `sink` to write them into.
    package func writeSongs<Sink: RecordSink>(
        ids: [Int64],
        into sink: inout Sink,
        _ body: (SongRecord, inout Sink) -> Void
    ) async throws {
        try await writeSongs(ids: ids, into: &sink) { _, record, sink in body(record, &sink) }
    }

    /// ``writeSongs(ids:into:_:)`` with each song's id given to `body`.
    package func writeSongs<Sink: RecordSink>(
        ids: [Int64],
        into sink: inout Sink,
        _ body: (Int64, SongRecord, inout Sink) -> Void
    ) async throws {
        try store.read { db in
            try LibraryStore.forEachSong(db, ids: ids, columns: "s.id, \(LibraryStore.songColumns)") { row in
                body(row.int64(0), LibraryStore.record(row, from: 1), &sink)
            }
        }
    }
}

/// A song of ``Library/writeMatchingSongs(_:limit:into:_:)``'s answer.
package struct MatchingSong: Sendable, Equatable {
    /// The song's id.
    package var id: Int64
    /// Where the song's bytes lie in the sink; `nil` past the limit, for the caller to print
    /// with ``Library/writeSongs(ids:into:_:)``.
    package var bytes: Range<Int>?
}

extension Library {
    /// Writes the songs `selection` picks in one read, as ``songIDs(_:)`` followed by
    /// ``writeSongs(ids:into:_:)`` would, when the selection has neither a sort nor a window:
    /// `body` writes each of the first `limit` songs in the database's order of ids into
    /// `sink`, and the result lists every song in output order (MPD's database order) with
    /// where its bytes lie in `sink`, for the caller to send.
    ///
    /// Finding the songs in output order reads each one's `song` row for its place, and
    /// printing them one at a time reads it again with its packed tags: for a broad `search`
    /// at 100,000 songs, 5,000 rows scattered over most pages of both tables, each page a
    /// `pread` from the kernel's cache. Here the rows are read once, as the index hands them
    /// over, and only the songs' places are sorted. The read is not paged: the event loop is
    /// busy with it until every song is read (about 17 ms of CPU for those 5,045 songs on the
    /// bench machine, perf), and `limit` bounds the text held: songs past it are only placed.
    /// - Returns: every matching song in output order; `nil` when the selection sorts or
    ///   windows, or when it may test every song: those go through ``songIDs(_:)``.
    /// - Throws: what ``songIDs(_:)`` throws.
    package func writeMatchingSongs<Sink: RecordSink>(
        _ selection: DatabaseSelection,
        limit: Int,
        into sink: inout Sink,
        _ body: (SongRecord, inout Sink) -> Void
    ) async throws -> [MatchingSong]? {
        guard selection.sort == nil, selection.window == nil else { return nil }
        if let filter = selection.filter {
            try Self.validateRegexes(filter)
            // A test of every song runs off the event loop (``LibraryStore/read(mayScan:_:)``);
            // it is slow anyway, and printing it in pages keeps the loop free meanwhile.
            if FilterSQL.mayScan(filter) { return nil }
        }
        let condition = selection.filter.map(FilterSQL.condition) ?? .alwaysTrue
        return try store.read { db -> [MatchingSong]? in
            if let filter = selection.filter { try Self.validateBase(db, filter) }
            var songs: [(ord: Int64, song: MatchingSong)] = []
            songs.reserveCapacity(1024)
            try RawRow.forEach(
                db,
                "SELECT s.ord, s.id, \(LibraryStore.songColumns) FROM \(LibraryStore.songsWithTags) "
                    + "WHERE \(condition.sql)",
                arguments: condition.arguments
            ) { row in
                var bytes: Range<Int>?
                if songs.count < limit {
                    let start = sink.count
                    body(LibraryStore.record(row, from: 2), &sink)
                    bytes = start..<sink.count
                }
                songs.append((row.int64(0), MatchingSong(id: row.int64(1), bytes: bytes)))
            }
            // The order of ``songIDs(_:)``: `ord`, then the id should two share one.
            songs.sort { ($0.ord, $0.song.id) < ($1.ord, $1.song.id) }
            return songs.map(\.song)
        }
    }
}

extension Library {
    /// A `file` field with the URI of each song with these ids, in the order given (ids with
    /// no song are skipped), from one read.
    package func writeURIs<Sink: RecordSink>(ids: [Int64], into sink: inout Sink) async throws {
        try store.read { db in
            try LibraryStore.forEachSong(db, ids: ids, columns: "s.uri", from: "song s") { row in
                sink.append("file", bytes: row.blob(0))
            }
        }
    }

    /// A place in the database's song order: `ord`, and the id. A scan numbers `ord` afresh
    /// in the transaction that writes the songs, so no two share one; the id keeps the order
    /// total anyway, and a page boundary exact, should they.
    package typealias SongPosition = (ord: Int64, id: Int64)

    /// A `file` field with the URI of each of up to `limit` songs of the whole database, in
    /// its order, after `cursor` (`nil` to start).
    /// - Returns: the position to go on from (`nil` at the end): `list file` pages through
    ///   100,000 songs instead of collecting them first.
    package func writeURIs<Sink: RecordSink>(
        after cursor: SongPosition?, limit: Int, into sink: inout Sink
    ) async throws -> SongPosition? {
        try store.read { db in
            var last: SongPosition?
            var count = 0
            try RawRow.forEach(
                db, "SELECT s.ord, s.id, s.uri FROM song s WHERE (s.ord, s.id) > (?, ?) ORDER BY s.ord, s.id LIMIT ?",
                arguments: [
                    (cursor?.ord ?? Int64.min).databaseValue, (cursor?.id ?? Int64.min).databaseValue,
                    limit.databaseValue,
                ],
                cached: true
            ) { row in
                sink.append("file", bytes: row.blob(2))
                last = (row.int64(0), row.int64(1))
                count += 1
            }
            return count == limit ? last : nil
        }
    }
}

extension LibraryStore {
    /// The record in a row of ``songColumns`` starting at column `first`.
    static func record(_ row: RawRow, from first: Int32 = 0) -> SongRecord {
        SongRecord(
            uri: row.blob(first), lastModified: row.int64(first + 1), added: row.int64(first + 2),
            audioFormat: row.isNull(first + 3) ? nil : row.blob(first + 3), duration: row.double(first + 4),
            packedTags: row.blob(first + 5)
        )
    }

    /// Calls `body` with the row of `columns` (``songColumns`` unless given) from `table` (the
    /// song `s`, with its tags unless given) of each song in `ids`, in that order: one seek each
    /// through a cached statement, which keeps the order without collecting rows.
    static func forEachSong(
        _ db: Database, ids: [Int64], columns: String = songColumns, from table: String = songsWithTags,
        _ body: (RawRow) throws -> Void
    ) throws {
        let sql = "SELECT \(columns) FROM \(table) WHERE s.id = ?"
        let statement = try db.cachedStatement(sql: sql)
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        for id in ids {
            sqlite3_reset(handle)
            sqlite3_bind_int64(handle, 1, id)
            let code = sqlite3_step(handle)
            if code == SQLITE_ROW {
                try body(RawRow(handle: handle))
            } else if code != SQLITE_DONE {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: sql)
            }
        }
    }
}
