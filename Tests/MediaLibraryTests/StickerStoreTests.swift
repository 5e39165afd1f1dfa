import Foundation
import GRDB
import MusicModel
import Testing

@testable import MediaLibrary

/// A sticker database in a temporary directory, removed when the test ends.
private final class TemporaryStickers {
    let directory = NSTemporaryDirectory() + "tonearm-stickers-\(UUID().uuidString)"
    var path: String { directory + "/sticker.sql" }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    func open() throws -> StickerStore { try StickerStore(path: path) }
}

@Suite("Sticker store")
struct StickerStoreTests {
    @Test("the file has MPD's table and index and nothing else, in rollback-journal mode")
    func mpdSchema() async throws {
        let temporary = TemporaryStickers()
        let store = try temporary.open()
        try await store.set(type: "song", uri: "a.flac", name: "rating", value: "5")
        let (objects, journal) = try await store.queue.read { db in
            (
                try Row.fetchAll(db, sql: "SELECT type, name FROM sqlite_master ORDER BY name").map {
                    "\($0[0] as String) \($0[1] as String)"
                },
                try String.fetchOne(db, sql: "PRAGMA journal_mode")
            )
        }
        #expect(objects == ["table sticker", "index sticker_value"])
        #expect(journal == "delete")
    }

    /// The statements MPD runs on its `sticker_file`, byte for byte: `sticker_sql_create` in
    /// src/sticker/Database.cxx, the same in 0.23.12 and 0.24.13.
    static let mpdCreate =
        "CREATE TABLE IF NOT EXISTS sticker(  type VARCHAR NOT NULL,   uri VARCHAR NOT NULL, "
        + "  name VARCHAR NOT NULL,   value VARCHAR NOT NULL);"
        + "CREATE UNIQUE INDEX IF NOT EXISTS sticker_value ON sticker(type, uri, name);"

    /// `SELECT sql FROM sqlite_master` of a `sticker.sql` that Debian's MPD 0.23.12 created
    /// (`sqlite3 sticker.sql .schema` shows the same lines).
    static let mpdSchema = [
        "CREATE TABLE sticker(  type VARCHAR NOT NULL,   uri VARCHAR NOT NULL,   name VARCHAR NOT NULL,   "
            + "value VARCHAR NOT NULL)",
        "CREATE UNIQUE INDEX sticker_value ON sticker(type, uri, name)",
    ]

    /// The `sql` of every table and index in the file, in the order they were made.
    private func schema(_ queue: DatabaseQueue) async throws -> [String] {
        try await queue.read { db in try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master ORDER BY rowid") }
    }

    /// The table's columns (name, type, not null, key) and the unique index's columns.
    private func shape(_ queue: DatabaseQueue) async throws -> [String] {
        try await queue.read { db in
            let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(sticker)").map { row -> String in
                "\(row["name"] as String) \(row["type"] as String) \(row["notnull"] as Int) \(row["pk"] as Int)"
            }
            let indexes = try Row.fetchAll(db, sql: "PRAGMA index_list(sticker)").map { row -> String in
                "index \(row["name"] as String) unique \(row["unique"] as Int)"
            }
            let keys = try Row.fetchAll(db, sql: "PRAGMA index_info(sticker_value)").map {
                "key \($0["name"] as String)"
            }
            return columns + indexes + keys
        }
    }

    @Test("an existing MPD sticker.sql opens as it is, keeps its stickers and MPD's schema")
    func opensMPDFile() async throws {
        let temporary = TemporaryStickers()
        try FileManager.default.createDirectory(atPath: temporary.directory, withIntermediateDirectories: true)
        // What MPD writes: its own statements, then a sticker as its `sticker set` inserts one.
        let mpd = try DatabaseQueue(path: temporary.path)
        try await mpd.write { db in
            try db.execute(sql: Self.mpdCreate)
            try db.execute(
                sql: "INSERT INTO sticker(type,uri,name,value) VALUES(?, ?, ?, ?)",
                arguments: ["song", "x/y.flac", "rating", "8"])
        }
        #expect(try await schema(mpd) == Self.mpdSchema)
        try mpd.close()
        let store = try temporary.open()
        #expect(try await store.value(type: "song", uri: "x/y.flac", name: "rating") == "8")
        // Tonearm's own statements change nothing in it, so MPD reads it as it wrote it.
        #expect(try await schema(store.queue) == Self.mpdSchema)
    }

    @Test("a file Tonearm creates has the columns and unique index of MPD's")
    func createsMPDsShape() async throws {
        let mpdFile = TemporaryStickers()
        try FileManager.default.createDirectory(atPath: mpdFile.directory, withIntermediateDirectories: true)
        let mpd = try DatabaseQueue(path: mpdFile.path)
        try await mpd.write { db in try db.execute(sql: Self.mpdCreate) }
        let mine = TemporaryStickers()
        let store = try mine.open()
        let expected = try await shape(mpd)
        #expect(expected.count == 8)  // four columns, one index, three keys
        #expect(try await shape(store.queue) == expected)
        try mpd.close()
    }

    @Test("set replaces, an empty name is ignored, list is sorted by name")
    func setAndList() async throws {
        let temporary = TemporaryStickers()
        let store = try temporary.open()
        #expect(try await store.set(type: "song", uri: "a", name: "b", value: "1"))
        #expect(try await store.set(type: "song", uri: "a", name: "a", value: "2"))
        #expect(try await store.set(type: "song", uri: "a", name: "b", value: "3"))
        #expect(try await store.set(type: "song", uri: "a", name: "", value: "4") == false)
        #expect(try await store.set(type: "playlist", uri: "a", name: "c", value: "5"))
        let listed = try await store.list(type: "song", uri: "a")
        #expect(listed.map(\.name) == ["a", "b"])
        #expect(listed.map(\.value) == ["2", "3"])
        #expect(try await store.value(type: "song", uri: "a", name: "") == nil)
        #expect(try await store.names() == ["a", "b", "c"])
        let pairs = try await store.namesAndTypes(type: nil)
        #expect(pairs.map { "\($0.name)/\($0.type)" } == ["a/song", "b/song", "c/playlist"])
        #expect(try await store.namesAndTypes(type: "playlist").map(\.name) == ["c"])
    }

    @Test("the play statistics' counters add in SQL and start at the delta")
    func counters() async throws {
        let temporary = TemporaryStickers()
        let store = try temporary.open()
        try await store.add(5, type: "song", uri: "a", name: "n")
        try await store.add(3, type: "song", uri: "a", name: "n")
        #expect(try await store.value(type: "song", uri: "a", name: "n") == "8")
        try await store.add(-10, type: "song", uri: "a", name: "n")
        #expect(try await store.value(type: "song", uri: "a", name: "n") == "-2")
        try await store.add(-4, type: "song", uri: "a", name: "m")
        #expect(try await store.value(type: "song", uri: "a", name: "m") == "-4")
        // A value that is no number counts as 0, as SQLite's `value+?` has it.
        try await store.set(type: "song", uri: "a", name: "word", value: "high")
        try await store.add(1, type: "song", uri: "a", name: "word")
        #expect(try await store.value(type: "song", uri: "a", name: "word") == "1")
        #expect(try await store.add(1, type: "song", uri: "a", name: "") == false)
    }

    @Test("inc and dec run MPD 0.24's statements: a missing sticker starts at the operand, as given")
    func incrementAndDecrement() async throws {
        let temporary = TemporaryStickers()
        let store = try temporary.open()
        func value(_ name: String) async throws -> String? { try await store.value(type: "song", uri: "a", name: name) }
        try await store.adjust(.increment, by: "5", type: "song", uri: "a", name: "n")
        try await store.adjust(.increment, by: "3", type: "song", uri: "a", name: "n")
        #expect(try await value("n") == "8")
        try await store.adjust(.decrement, by: "10", type: "song", uri: "a", name: "n")
        #expect(try await value("n") == "-2")
        // MPD inserts the operand itself, so `dec` of a missing sticker stores +4, not -4.
        try await store.adjust(.decrement, by: "4", type: "song", uri: "a", name: "m")
        #expect(try await value("m") == "4")
        // The operand is text for SQLite's arithmetic: no number counts as 0, a fraction stays one.
        try await store.adjust(.increment, by: "x", type: "song", uri: "a", name: "m")
        #expect(try await value("m") == "4")
        try await store.adjust(.increment, by: "-1", type: "song", uri: "a", name: "m")
        #expect(try await value("m") == "3")
        try await store.adjust(.decrement, by: "0.5", type: "song", uri: "a", name: "m")
        #expect(try await value("m") == "2.5")
        try await store.adjust(.increment, by: "word", type: "song", uri: "a", name: "w")
        #expect(try await value("w") == "word")
    }

    @Test("delete one name or all of an object, and say whether anything went")
    func delete() async throws {
        let temporary = TemporaryStickers()
        let store = try temporary.open()
        try await store.set(type: "song", uri: "a", name: "x", value: "1")
        try await store.set(type: "song", uri: "a", name: "y", value: "2")
        try await store.set(type: "song", uri: "b", name: "x", value: "3")
        #expect(try await store.delete(type: "song", uri: "a", name: "z") == false)
        #expect(try await store.delete(type: "song", uri: "a", name: "x"))
        #expect(try await store.list(type: "song", uri: "a").map(\.name) == ["y"])
        #expect(try await store.delete(type: "song", uri: "a", name: nil))
        #expect(try await store.delete(type: "song", uri: "a", name: nil) == false)
        #expect(try await store.list(type: "song", uri: "b").count == 1)
    }

    /// Ratings on five songs in two directories, for the find tests.
    private func ratings() async throws -> (TemporaryStickers, StickerStore) {
        let temporary = TemporaryStickers()
        let store = try temporary.open()
        for (uri, value) in [("d/one", "10"), ("d/two", "9"), ("d_x/three", "abc"), ("e/four", "07"), ("D/five", "-3")]
        {
            try await store.set(type: "song", uri: uri, name: "rating", value: value)
        }
        try await store.set(type: "song", uri: "d/one", name: "other", value: "1")
        return (temporary, store)
    }

    private func find(
        _ store: StickerStore, prefix: String = "", _ condition: StickerCondition? = nil,
        sort: StickerSort? = nil
    ) async throws -> [String] {
        try await store.find(
            StickerQuery(type: "song", uriPrefix: prefix, name: "rating", condition: condition, sort: sort)
        )
        .map { "\($0.uri)=\($0.value)" }
    }

    @Test("find without a condition lists the name's stickers by URI, below a byte-exact prefix")
    func findPrefix() async throws {
        let (temporary, store) = try await ratings()
        _ = temporary
        #expect(try await find(store) == ["D/five=-3", "d/one=10", "d/two=9", "d_x/three=abc", "e/four=07"])
        #expect(try await find(store, prefix: "d/") == ["d/one=10", "d/two=9"])
        // MPD's LIKE would let `_` match any character and ignore case; the prefix here is exact.
        #expect(try await find(store, prefix: "d_") == ["d_x/three=abc"])
        #expect(try await find(store, prefix: "D") == ["D/five=-3"])
        #expect(try await find(store, prefix: "nowhere/").isEmpty)
    }

    @Test("the string operators = < > compare bytes")
    func stringOperators() async throws {
        let (temporary, store) = try await ratings()
        _ = temporary
        #expect(try await find(store, StickerCondition(.equals, "07")) == ["e/four=07"])
        #expect(try await find(store, StickerCondition(.equals, "7")).isEmpty)
        #expect(try await find(store, StickerCondition(.lessThan, "1")) == ["D/five=-3", "e/four=07"])
        #expect(try await find(store, StickerCondition(.greaterThan, "9")) == ["d_x/three=abc"])
    }

    @Test("the integer operators eq lt gt read both sides as integers")
    func integerOperators() async throws {
        let (temporary, store) = try await ratings()
        _ = temporary
        #expect(try await find(store, StickerCondition(.equalsInteger, "7")) == ["e/four=07"])
        #expect(
            try await find(store, StickerCondition(.lessThanInteger, "8")) == [
                "D/five=-3", "d_x/three=abc", "e/four=07",
            ])
        #expect(try await find(store, StickerCondition(.greaterThanInteger, "8")) == ["d/one=10", "d/two=9"])
        #expect(try await find(store, StickerCondition(.equalsInteger, "abc")) == ["d_x/three=abc"])
    }

    @Test("contains and starts_with are case-sensitive and take no wildcards")
    func substringOperators() async throws {
        let (temporary, store) = try await ratings()
        _ = temporary
        #expect(try await find(store, StickerCondition(.contains, "b")) == ["d_x/three=abc"])
        #expect(try await find(store, StickerCondition(.contains, "B")).isEmpty)
        #expect(try await find(store, StickerCondition(.contains, "%")).isEmpty)
        #expect(try await find(store, StickerCondition(.startsWith, "1")) == ["d/one=10"])
        #expect(try await find(store, StickerCondition(.startsWith, "0")) == ["e/four=07"])
        #expect(try await find(store, StickerCondition(.startsWith, "_")).isEmpty)
    }

    @Test("sort by uri, value or value_int, ascending or descending")
    func sorting() async throws {
        let (temporary, store) = try await ratings()
        _ = temporary
        #expect(
            try await find(store, sort: StickerSort(.value)) == [
                "D/five=-3", "e/four=07", "d/one=10", "d/two=9", "d_x/three=abc",
            ])
        #expect(
            try await find(store, sort: StickerSort(.valueInteger)) == [
                "D/five=-3", "d_x/three=abc", "e/four=07", "d/two=9", "d/one=10",
            ])
        #expect(
            try await find(store, sort: StickerSort(.valueInteger, descending: true))
                == ["d/one=10", "d/two=9", "e/four=07", "d_x/three=abc", "D/five=-3"])
        #expect(
            try await find(store, sort: StickerSort(.uri, descending: true))
                == ["e/four=07", "d_x/three=abc", "d/two=9", "d/one=10", "D/five=-3"])
        #expect(
            try await find(store, StickerCondition(.greaterThanInteger, "0"), sort: StickerSort(.valueInteger))
                == ["e/four=07", "d/two=9", "d/one=10"])
    }

    @Test("the cleanup helpers list and delete by type")
    func cleanupHelpers() async throws {
        let (temporary, store) = try await ratings()
        _ = temporary
        try await store.set(type: "Artist", uri: "Björk", name: "like", value: "1")
        #expect(Set(try store.types()) == ["song", "Artist"])
        #expect(try store.uris(type: "song").count == 5)
        #expect(try store.deleteAll(type: "song", uris: ["d/one", "e/four", "missing"]) == 3)
        #expect(try await find(store) == ["D/five=-3", "d/two=9", "d_x/three=abc"])
    }

    @Test("writeBlocking runs several changes in one transaction")
    func blockingWrites() throws {
        let temporary = TemporaryStickers()
        let store = try temporary.open()
        try store.writeBlocking { writer in
            try writer.add(1, type: "song", uri: "a", name: "playCount")
            try writer.add(1, type: "song", uri: "a", name: "playCount")
            try writer.set(type: "song", uri: "a", name: "lastPlayed", value: "1700000000")
        }
        let values = try store.queue.read { db in
            try Row.fetchAll(db, sql: "SELECT name, value FROM sticker ORDER BY name").map {
                "\($0[0] as String)=\($0[1] as String)"
            }
        }
        #expect(values == ["lastPlayed=1700000000", "playCount=2"])
    }

    @Test("sticker types: song, playlist, filter exactly; tags without case")
    func types() {
        #expect(StickerType(name: "song") == .song)
        #expect(StickerType(name: "Song") == nil)
        #expect(StickerType(name: "playlist") == .playlist)
        #expect(StickerType(name: "filter") == .filter)
        #expect(StickerType(name: "artist") == .tag(.artist))
        #expect(StickerType(name: "artist")?.name == "Artist")
        #expect(StickerType(name: "Track") == .tag(.track))
        #expect(!StickerType.allowedTags.contains(.track))
        #expect(StickerType(name: "nonsense") == nil)
        #expect(StickerType.allowedTags.first == .artist)
        #expect(StickerType.allowedTags.last == .musicBrainzWorkID)
        #expect(StickerType.allowedTags.count == 17)
    }
}
