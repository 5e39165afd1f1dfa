import Foundation
import GRDB
import MPDProtocol
import MusicModel
import Testing

@testable import MediaLibrary

/// ``Library/writeMatchingSongs(_:limit:into:_:)``, the one read of `find` and `search`, against
/// the two steps it stands for: ``Library/songIDs(_:)`` and then ``Library/writeSongs(ids:into:_:)``.
@Suite("Matching songs in one read")
struct MatchingSongsTests {
    /// What a song block's fields come to: `key: value` lines.
    struct Lines: RecordSink {
        var bytes: [UInt8] = []
        var count: Int { bytes.count }

        mutating func append(_ key: String, bytes value: UnsafeRawBufferPointer) {
            bytes += Array(key.utf8) + Array(": ".utf8) + Array(value) + [0x0A]
        }
    }

    /// Writes a record's URI and tags, as the server's printer does.
    static func print(_ record: SongRecord, _ lines: inout Lines) {
        lines.append("file", bytes: record.uri)
        record.forEachTag { type, value in lines.append(type.name, bytes: value) }
    }

    /// Songs whose walk order is the reverse of their ids, with one pair sharing a place, and
    /// one song without a title.
    static let songs: [TestLibrary.Entry] = [
        ("a/1.mp3", tags((.artist, "Night Owl"), (.title, "Night Train")), 10),
        ("a/2.mp3", tags((.artist, "Day"), (.title, "Midnight")), 20),
        ("b/3.mp3", tags((.artist, "Night Owl"), (.title, "Morning")), 30),
        ("b/4.mp3", [], nil),
        ("c/5.mp3", tags((.artist, "Day"), (.title, "NIGHTS"), (.title, "second title")), 50),
    ]

    /// A library of ``songs`` over a fresh database, with `ord` set so that walk order and id
    /// order differ: 5, 4, then 2 and 3 sharing one place, then 1.
    static func withLibrary(_ body: (Library) async throws -> Void) async throws {
        let database = try TestLibrary(songs)
        defer { database.remove() }
        try await database.store.pool.write { db in
            try db.execute(sql: "UPDATE song SET ord = CASE id WHEN 2 THEN 3 ELSE 6 - id END")
        }
        try await body(try database.library())
    }

    /// The selection's songs printed in one read (`nil` when the library declines), in output
    /// order: the songs past `limit` printed afterwards by id, as the server does.
    static func oneRead(_ library: Library, _ selection: DatabaseSelection, limit: Int = 100) async throws
        -> [UInt8]?
    {
        var lines = Lines()
        guard
            let songs = try await library.writeMatchingSongs(selection, limit: limit, into: &lines, print)
        else { return nil }
        var printed: [UInt8] = []
        for song in songs {
            if let bytes = song.bytes {
                printed += lines.bytes[bytes]
            } else {
                var later = Lines()
                try await library.writeSongs(ids: [song.id], into: &later) { id, record, later in
                    #expect(id == song.id)
                    print(record, &later)
                }
                printed += later.bytes
            }
        }
        return printed
    }

    /// The selection's songs printed as ids first, then a read per page.
    static func twoSteps(_ library: Library, _ selection: DatabaseSelection) async throws -> [UInt8] {
        var lines = Lines()
        try await library.writeSongs(ids: try await library.songIDs(selection), into: &lines, print)
        return lines.bytes
    }

    static func selection(_ expression: String?, foldCase: Bool = true) throws -> DatabaseSelection {
        DatabaseSelection(filter: try expression.map { try FilterExpression.parse(expression: $0, foldCase: foldCase) })
    }

    @Test(arguments: [
        ("(title contains 'night')", true), ("(artist contains 'NIGHT')", true), ("(artist == 'Night Owl')", false),
        ("(artist == 'nobody')", false), ("(file == 'b/3.mp3')", false),
    ])
    func printsWhatTheTwoStepsPrintInWalkOrder(expression: String, foldCase: Bool) async throws {
        try await Self.withLibrary { library in
            let selection = try Self.selection(expression, foldCase: foldCase)
            // Filters an index drives: the ones the one read takes.
            #expect(!FilterSQL.mayScan(try #require(selection.filter)))
            let expected = try await Self.twoSteps(library, selection)
            #expect(try await Self.oneRead(library, selection) == expected)
            // The songs past the limit, printed by id afterwards, fall into their places.
            #expect(try await Self.oneRead(library, selection, limit: 1) == expected)
        }
    }

    @Test func everySongInWalkOrderWithoutAFilter() async throws {
        try await Self.withLibrary { library in
            let printed = try #require(try await Self.oneRead(library, DatabaseSelection(filter: nil)))
            let files = String(decoding: printed, as: UTF8.self).split(separator: "\n").filter {
                $0.hasPrefix("file: ")
            }
            // Places 1, 2, 3 (ids 5, 4, then 2 and 3 by id), 5 (id 1).
            #expect(files == ["file: c/5.mp3", "file: b/4.mp3", "file: a/2.mp3", "file: b/3.mp3", "file: a/1.mp3"])
        }
    }

    @Test func writesTheFirstSongsByIdUpToTheLimitAndPlacesTheRest() async throws {
        try await Self.withLibrary { library in
            var lines = Lines()
            let songs = try #require(
                try await library.writeMatchingSongs(DatabaseSelection(filter: nil), limit: 2, into: &lines, Self.print)
            )
            // Walk order: 5, 4, 2, 3, 1; the first two ids were written, the rest only placed.
            #expect(songs.map(\.id) == [5, 4, 2, 3, 1])
            #expect(songs.filter { $0.bytes != nil }.map(\.id).sorted() == [1, 2])
            let first = try #require(songs.last?.bytes)
            #expect(String(decoding: lines.bytes[first], as: UTF8.self).hasPrefix("file: a/1.mp3\n"))
        }
    }

    @Test func declinesSortsWindowsAndScans() async throws {
        try await Self.withLibrary { library in
            var sorted = try Self.selection("(artist contains 'night')")
            sorted.sort = SortOrder(.tag(.title))
            #expect(try await Self.oneRead(library, sorted) == nil)
            var windowed = try Self.selection(nil)
            windowed.window = RangeArgument(start: 1, end: 3)
            #expect(try await Self.oneRead(library, windowed) == nil)
            // A regular expression tests every title: it is read in pages off the event loop.
            #expect(try await Self.oneRead(library, try Self.selection("(title =~ 'ni.ht')")) == nil)
        }
    }

    @Test func anInvalidRegularExpressionOrAMissingBaseStillThrows() async throws {
        try await Self.withLibrary { library in
            await #expect(throws: LibraryError.self) {
                _ = try await Self.oneRead(library, try Self.selection("(title =~ 'ni(ght')"))
            }
            // The songs were written into the root: there is no directory `a`.
            await #expect(throws: LibraryError.noSuchDirectory("a")) {
                _ = try await Self.oneRead(library, try Self.selection("(base 'a')"))
            }
        }
    }
}
