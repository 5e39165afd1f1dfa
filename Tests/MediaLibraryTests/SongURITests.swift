import Foundation
import GRDB
import Logging
import MusicModel
import Testing

@testable import MediaLibrary

@Suite("Song URIs")
struct SongURITests {
    /// A library over `songs`, as the server opens it.
    private func library(_ songs: [TestLibrary.Entry]) throws -> (Library, TestLibrary) {
        let test = try TestLibrary(songs)
        let settings = Library.Settings(
            musicDirectory: test.directory, databasePath: test.directory + "/db.sqlite",
            songSuffixes: ["mp3"], tagMask: .all)
        return (try Library(settings: settings, logger: Logger(label: "test"), onEvent: { _ in }), test)
    }

    /// Collects what the library writes as `key: value` lines.
    private struct Lines: RecordSink {
        var text = ""
        var count: Int { text.utf8.count }

        mutating func append(_ key: String, bytes value: UnsafeRawBufferPointer) {
            text += key + ": " + String(decoding: value, as: UTF8.self) + "\n"
        }
    }

    @Test(arguments: [1, 2, 3, 7, 8])
    func pagesCoverEverySongOnceInDatabaseOrder(limit: Int) async throws {
        let (library, test) = try library(mixedSongs)
        defer { test.remove() }
        // Number the songs as a scan would, with one tie (which a scan never leaves).
        try await test.store.pool.write { db in
            try db.execute(sql: "UPDATE song SET ord = 100 - id")
            try db.execute(sql: "UPDATE song SET ord = 50 WHERE uri IN ('2.mp3', '5.mp3')")
        }
        let expected = try test.read { db in
            try String.fetchAll(db, sql: "SELECT 'file: ' || uri || char(10) FROM song ORDER BY ord, id").joined()
        }
        var printed = ""
        var cursor: Library.SongPosition?
        var pages = 0
        repeat {
            var lines = Lines()
            cursor = try await library.writeURIs(after: cursor, limit: limit, into: &lines)
            printed += lines.text
            pages += 1
        } while cursor != nil && pages <= mixedSongs.count + 1
        #expect(printed == expected)
        // A full last page needs one more, empty, read to see the end.
        #expect(pages == mixedSongs.count / limit + 1)
    }

    @Test func urisByIDKeepTheOrderGivenAndSkipUnknownIDs() async throws {
        let (library, test) = try library(mixedSongs)
        defer { test.remove() }
        let ids = try test.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM song WHERE uri IN ('1.mp3', '6.mp3') ORDER BY uri")
        }
        var lines = Lines()
        try await library.writeURIs(ids: [ids[1], 999_999, ids[0]], into: &lines)
        #expect(lines.text == "file: 6.mp3\nfile: 1.mp3\n")
    }

    /// More URIs than one lookup binds, out of order, repeated, some unknown, some that differ
    /// only in case or by bytes that sort after ASCII: each known one found with its own song.
    @Test func songsAtURIsFindsEveryKnownURIAcrossBatches() async throws {
        let count = Library.lookupBatch * 2 + 7
        let names = (0..<count).map { index in index % 3 == 0 ? "Ä/\(index).mp3" : "a/\(index).mp3" } + ["A/0.mp3"]
        let (library, test) = try library(names.map { ($0, tags((.title, "t " + $0)), 1) })
        defer { test.remove() }
        let asked: [String] = Array(names.reversed()) + names.prefix(10) + ["missing.mp3", "a/0.MP3"]
        let found = try await library.songs(atURIs: asked)
        #expect(found.count == names.count)
        #expect(names.allSatisfy { found[$0]?.uri == $0 && found[$0]?.tags == [TagValue(.title, "t " + $0)] })
        #expect(try await library.songs(atURIs: [String]()).isEmpty)
    }
}
