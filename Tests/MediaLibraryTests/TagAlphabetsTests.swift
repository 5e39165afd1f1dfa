import Foundation
import GRDB
import MPDProtocol
import MusicModel
import Testing

@testable import MediaLibrary

/// An `any` substring search reads the rows of the tags outside the trigram index only where
/// their values hold every byte of the needle (``TagAlphabets``), and finds what it found
/// reading them all.
@Suite("Tag alphabets")
struct TagAlphabetsTests {
    private static let songs: [TestLibrary.Entry] = [
        ("a.mp3", tags((.title, "Midnight"), (.date, "2001"), (.track, "3/12")), 1),
        ("b.mp3", tags((.title, "Day"), (.musicBrainzTrackID, "89ad4ac3-39f7-470e-963a-56509c546377")), 1),
        ("c.mp3", tags((.title, "Dawn"), (.disc, "1"), (.date, "1999-10-02")), 1),
        ("d.mp3", tags((.artist, "Nightwish"), (.originalDate, "unknown")), 1),
    ]

    /// The songs `expression` selects, by URI, through ``LibraryStore/condition(_:_:)``, and
    /// through the condition that reads every unindexed tag.
    private func search(_ expression: String, in library: TestLibrary) throws -> (narrowed: [String], full: [String]) {
        let filter = try FilterExpression.parse(expression: expression, foldCase: true)
        return try library.read { db in
            func uris(_ condition: SQLFragment) throws -> [String] {
                try String.fetchAll(
                    db, sql: "SELECT s.uri FROM song s WHERE \(condition.sql) ORDER BY s.uri",
                    arguments: StatementArguments(condition.arguments))
            }
            return (try uris(library.store.condition(filter, db)), try uris(FilterSQL.condition(filter)))
        }
    }

    @Test func theTagsThatMayHoldANeedleAreThoseWithAllItsBytes() throws {
        let library = try TestLibrary(Self.songs)
        defer { library.remove() }
        let alphabets = try library.read { try TagAlphabets.read($0) }
        #expect(alphabets.tags(mayContain: "nig") == [])
        #expect(alphabets.tags(mayContain: "kno") == [.originalDate])
        #expect(alphabets.tags(mayContain: "ad4") == [.musicBrainzTrackID])
        #expect(alphabets.tags(mayContain: "3/1") == [.track])
        #expect(Set(alphabets.tags(mayContain: "99-")) == [.date, .musicBrainzTrackID])
        #expect(alphabets.tags(mayContain: "200") == [.date])  // the identifier has no 2
    }

    @Test func aNarrowedSearchFindsWhatAFullOneFinds() throws {
        let library = try TestLibrary(Self.songs)
        defer { library.remove() }
        let expected: [String: [String]] = [
            "nig": ["a.mp3", "d.mp3"], "NOWN": ["d.mp3"], "ad4ac3": ["b.mp3"], "3/12": ["a.mp3"],
            "99-10": ["c.mp3"], "200": ["a.mp3"], "zzz": [],
        ]
        for (needle, uris) in expected {
            let found = try search("(any contains '\(needle)')", in: library)
            #expect(found.narrowed == uris, "\(needle)")
            #expect(found.full == uris, "\(needle)")
            let negated = try search("(!(any contains '\(needle)'))", in: library)
            #expect(negated.narrowed == negated.full, "\(needle)")
        }
    }

    @Test func noUnindexedRowIsReadForANeedleNoneOfThemHolds() throws {
        let library = try TestLibrary(Self.songs)
        defer { library.remove() }
        let filter = try FilterExpression.parse(expression: "(any contains 'night')", foldCase: true)
        let sql = try library.read { try library.store.condition(filter, $0) }.sql
        #expect(sql.contains("songTagText MATCH ?"))
        #expect(!sql.contains("songTag t"))
        let digits = try FilterExpression.parse(expression: "(any contains '2001')", foldCase: true)
        #expect(try library.read { try library.store.condition(digits, $0) }.sql.contains("songTag t"))
    }

    /// The alphabets belong to one state of the database: a new value with new bytes is found
    /// once the write that added it raised the generation, as every scan that changes does.
    @Test func aNewStateOfTheDatabaseIsReadAgain() throws {
        let library = try TestLibrary(Self.songs)
        defer { library.remove() }
        #expect(try search("(any contains 'tly')", in: library).narrowed == [])
        try library.store.pool.write { db in
            try SongWriter.write(
                DiskTree.File(uri: "e.mp3", mtime: 1, size: 1),
                FileMetadata(tags: tags((.title, "E"), (.date, "nightly")), duration: 1),
                directory: 1, existing: nil, now: 1, db)
            try LibraryStore.raiseGeneration(db)
        }
        #expect(try search("(any contains 'tly')", in: library).narrowed == ["e.mp3"])
        #expect(try search("(any contains 'nig')", in: library).narrowed == ["a.mp3", "d.mp3", "e.mp3"])
    }

    /// A database emptied in place after damage starts its generations again: what was read
    /// of the old one is not used for the new one.
    @Test func aDatabaseEmptiedInPlaceIsReadAgain() throws {
        let library = try TestLibrary(Self.songs)
        defer { library.remove() }
        #expect(try search("(any contains 'tly')", in: library).narrowed == [])
        try library.store.reset(
            keepingCopyAt: library.directory + "/damaged.sqlite", of: library.directory + "/db.sqlite")
        _ = try library.store.pool.write { db in
            try SongWriter.write(
                DiskTree.File(uri: "e.mp3", mtime: 1, size: 1),
                FileMetadata(tags: tags((.title, "E"), (.date, "nightly")), duration: 1),
                directory: 1, existing: nil, now: 1, db)
        }
        #expect(try search("(any contains 'tly')", in: library).narrowed == ["e.mp3"])
    }
}
