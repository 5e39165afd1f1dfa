import Foundation
import GRDB
import MPDProtocol
import MusicModel
import Testing

@testable import MediaLibrary

/// A smart playlist's rule evaluated against a database and sticker values: filters with
/// sticker terms, sorts by a sticker or a tag, limits.
@Suite struct SmartPlaylistQueryTests {
    static let songs: [TestLibrary.Entry] = [
        ("a.mp3", tags((.artist, "Alpha"), (.title, "One"), (.genre, "Jazz")), 10),
        ("b.mp3", tags((.artist, "Beta"), (.title, "Two"), (.genre, "Rock")), 10),
        ("c.mp3", tags((.artist, "alpha"), (.title, "Three"), (.genre, "jazz")), 10),
        ("d.mp3", tags((.artist, "Gamma"), (.title, "Four")), 10),
        ("e.mp3", tags((.artist, "Beta"), (.title, "Five"), (.genre, "Jazz")), 10),
    ]

    /// Play counts and ratings as the sticker database would give them; `d.mp3` has none.
    static let stickers = SongStickerValues([
        "playCount": ["a.mp3": 3, "b.mp3": 7, "c.mp3": 0, "e.mp3": 3],
        "rating": ["a.mp3": 10, "b.mp3": 4, "e.mp3": 8],
    ])

    /// The URIs `rule` (a definition's filters, sort and limit) chooses among ``songs``.
    static func evaluate(
        _ filters: [String], sort: String? = nil, limit: Int? = nil, stickers: SongStickerValues = stickers
    ) async throws -> [String] {
        let database = try TestLibrary(songs)
        defer { database.remove() }
        // The database's walk order, as a scan would number it: the order written. Added in
        // three scans (a, d; b, e; c), modified in the reverse order of writing.
        try await database.store.pool.write { db in
            try db.execute(sql: "UPDATE song SET ord = id, added = id % 3, mtime = 10 - id")
        }
        let library = try database.library()
        let rule = try SmartPlaylistDefinition(filters: filters, sort: sort, limit: limit).rule(now: 1_000)
        return try await library.songURIs(rule, stickers: stickers)
    }

    @Test func aStickerTermMatchesTheSongsWhoseValueHolds() async throws {
        #expect(try await Self.evaluate(["(sticker:playCount >= 3)"]) == ["a.mp3", "b.mp3", "e.mp3"])
        #expect(try await Self.evaluate(["(sticker:rating == 4)"]) == ["b.mp3"])
    }

    @Test func aSongWithoutTheStickerReadsAsZero() async throws {
        // "Never played": no playCount at all (d), or a count of 0 (c).
        #expect(try await Self.evaluate(["(sticker:playCount == 0)"]) == ["c.mp3", "d.mp3"])
        #expect(try await Self.evaluate(["(sticker:rating < 5)"]) == ["b.mp3", "c.mp3", "d.mp3"])
        #expect(try await Self.evaluate(["(!(sticker:rating < 5))"]) == ["a.mp3", "e.mp3"])
        // Without a sticker database every sticker is missing.
        #expect(try await Self.evaluate(["(sticker:playCount == 0)"], stickers: SongStickerValues()).count == 5)
        #expect(try await Self.evaluate(["(sticker:playCount > 0)"], stickers: SongStickerValues()).isEmpty)
    }

    @Test func stickerTermsCombineWithTagsFoldingCase() async throws {
        // Rules compare as `search` does: "jazz" finds "Jazz".
        #expect(try await Self.evaluate(["(genre == 'jazz')", "(sticker:playCount >= 1)"]) == ["a.mp3", "e.mp3"])
        #expect(try await Self.evaluate(["((artist == 'ALPHA') AND (sticker:rating != 10))"]) == ["c.mp3"])
    }

    @Test func aStickerSortKeepsTheDatabaseOrderForTies() async throws {
        #expect(
            try await Self.evaluate(["(sticker:playCount >= 0)"], sort: "-sticker:playCount")
                == ["b.mp3", "a.mp3", "e.mp3", "c.mp3", "d.mp3"])
        #expect(
            try await Self.evaluate(["(base '')"], sort: "sticker:rating")
                == ["c.mp3", "d.mp3", "b.mp3", "e.mp3", "a.mp3"])
    }

    @Test func theLimitCutsTheSortedSongs() async throws {
        #expect(try await Self.evaluate(["(base '')"], sort: "-sticker:rating", limit: 2) == ["a.mp3", "e.mp3"])
        #expect(try await Self.evaluate(["(base '')"], sort: "Title", limit: 3) == ["e.mp3", "d.mp3", "a.mp3"])
        #expect(try await Self.evaluate(["(artist == 'beta')"], limit: 1) == ["b.mp3"])
        #expect(try await Self.evaluate([], sort: "-Title", limit: 2) == ["b.mp3", "c.mp3"])
    }

    @Test func aSortByTimeKeepsTheDatabaseOrderForTiesAndStopsAtTheLimit() async throws {
        #expect(try await Self.evaluate([], sort: "-Added") == ["b.mp3", "e.mp3", "a.mp3", "d.mp3", "c.mp3"])
        #expect(try await Self.evaluate([], sort: "Added", limit: 3) == ["c.mp3", "a.mp3", "d.mp3"])
        #expect(
            try await Self.evaluate(["(sticker:playCount == 0)"], sort: "-Added", limit: 1) == ["d.mp3"])
        #expect(try await Self.evaluate([], sort: "Last-Modified", limit: 2) == ["e.mp3", "d.mp3"])
        #expect(
            try await Self.evaluate(["(added-since '1')"], sort: "-Last-Modified") == [
                "a.mp3", "b.mp3", "d.mp3", "e.mp3",
            ])
    }

    @Test func aBaseThatNamesNothingMatchesNothing() async throws {
        #expect(try await Self.evaluate(["(base 'Gone')"]).isEmpty)
    }

    @Test func aRegularExpressionThatDoesNotCompileIsRefused() async throws {
        await #expect(throws: LibraryError.self) { try await Self.evaluate(["(title =~ '(')"]) }
    }

    @Test func theStickerStoreGivesValuesAsIntegers() async throws {
        let directory = NSTemporaryDirectory() + "tonearm-smart-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try StickerStore(path: directory + "/sticker.sql")
        for (uri, value) in [("a", "7"), ("b", "words"), ("c", "3.9"), ("d", " 12")] {
            try await store.set(type: "song", uri: uri, name: "playCount", value: value)
        }
        try await store.set(type: "playlist", uri: "a", name: "playCount", value: "99")
        try await store.set(type: "song", uri: "a", name: "rating", value: "9")
        let values = try await store.songValues(names: ["playCount", "none"])
        #expect(values.values(of: "playCount") == ["a": 7, "b": 0, "c": 3, "d": 12])
        #expect(values.values(of: "none").isEmpty && values.value(of: "rating", for: "a") == 0)
    }
}
