import Foundation
import GRDB
import MPDProtocol
import MusicModel
import Testing

@testable import MediaLibrary

@Suite("Filter SQL")
struct FilterSQLTests {
    @Test func aSubstringSearchIsDrivenByTheTrigramIndex() throws {
        let filter = try FilterExpression.parse(expression: "(title contains 'night')", foldCase: true)
        let sql = FilterSQL.condition(filter).sql
        #expect(sql.contains("songTagText MATCH ?"))
        // The hits' row ids name their songs: no seek into songTag per hit.
        #expect(!sql.contains("songTag t"))
    }

    @Test func shortOrUnindexedSearchesUseTheTagIndex() throws {
        for expression in ["(title contains 'ni')", "(track contains '123')", "(title == 'night')"] {
            let filter = try FilterExpression.parse(expression: expression, foldCase: true)
            let sql = FilterSQL.condition(filter).sql
            #expect(!sql.contains("MATCH"), "\(expression)")
        }
    }

    @Test func trigramSearchFindsTheSameSongs() throws {
        let library = try TestLibrary([
            ("1.mp3", tags((.title, "one")), 1), ("7.mp3", tags((.title, "Tonight")), 1),
            ("8.mp3", tags((.title, "NIGHTS")), 1),
        ])
        defer { library.remove() }
        let filter = try FilterExpression.parse(expression: "(title contains 'night')", foldCase: true)
        let condition = FilterSQL.condition(filter)
        let uris = try library.read { db in
            try String.fetchAll(
                db, sql: "SELECT s.uri FROM song s WHERE \(condition.sql) ORDER BY s.uri",
                arguments: StatementArguments(condition.arguments))
        }
        #expect(uris == ["7.mp3", "8.mp3"])
    }

    @Test func mayScanIsWhatSQLitePlans() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let expressions = [
            "(artist == 'A')", "(title contains 'night')", "(file == '1.mp3')", "(base 'Al1')",
            "((artist == 'A') AND (title =~ 'o.e'))", "((album != 'x') AND (title contains 'five'))",
            "(artist != 'A')", "(title contains 'ni')", "(title =~ 'o.e')", "(title starts_with 'fi')",
            "(artist == '')", "(any contains 'five')", "(modified-since '2020-01-01T00:00:00Z')",
            "(!(artist == 'A'))", "((artist != 'A') AND (title =~ 'o'))", "(AudioFormat == '44100:16:2')",
            "(albumartist == 'X')", "((artist == 'A') AND (album !~ 'x'))", "((artist == 'A') AND (album == ''))",
            "((title contains 'five') AND (any contains 'x'))", "((file == '1.mp3') AND (title != 'one'))",
            "(albumartistsort == 'X')", "(albumartist contains 'xyz')", "(albumartist != 'X')",
            "(albumartist == '')", "(albumartistsort =~ 'X')", "(albumartist starts_with 'X')",
            "(added-since '2020-01-01T00:00:00Z')", "((added-since '2020-01-01T00:00:00Z') AND (artist == 'A'))",
            "(track == '1')", "((album == 'Al1') AND (track == '1'))", "((albumartist == 'X') AND (track == '1'))",
            "((artist == 'A') AND (track contains '1'))", "((track == '1') AND (title =~ 'o'))",
            "((album == 'Al1') AND (disc != '1'))", "((track == '1') AND (disc == '1'))",
            "((date =~ '19') AND (album == 'Al1'))", "((track == '') AND (album == 'Al1'))",
        ]
        for expression in expressions {
            for foldCase in [false, true] {
                let filter = try FilterExpression.parse(expression: expression, foldCase: foldCase)
                let condition = FilterSQL.condition(filter)
                let plan = try library.read { db in
                    try Row.fetchAll(
                        db, sql: "EXPLAIN QUERY PLAN SELECT s.id FROM song s WHERE \(condition.sql)",
                        arguments: StatementArguments(condition.arguments)
                    ).map { $0["detail"] as String }
                }
                // A table read whole, or every value of one tag (an index searched on the tag alone).
                let scans = plan.contains { step in
                    (step.hasPrefix("SCAN ") && !step.contains("VIRTUAL TABLE")) || step.hasSuffix("(tag=?)")
                }
                // The list of songs since a time may be every song (a time long past).
                let range = plan.contains { $0.contains("song_added") || $0.contains("song_mtime") }
                #expect(FilterSQL.mayScan(filter) == (scans || range), "\(expression) foldCase \(foldCase): \(plan)")
            }
        }
    }

    /// The steps of SQLite's plan for the songs `filter` selects.
    private func plan(_ filter: FilterExpression, in library: TestLibrary) throws -> [String] {
        let condition = FilterSQL.condition(filter)
        return try library.read { db in
            try Row.fetchAll(
                db, sql: "EXPLAIN QUERY PLAN SELECT s.id FROM song s WHERE \(condition.sql) ORDER BY s.ord",
                arguments: StatementArguments(condition.arguments)
            ).map { $0["detail"] as String }
        }
    }

    @Test func aTrackTermBesideAnIndexedOneIsCheckedPerSong() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        // MPDroid's first track of an album: the album artist's union and the album drive; the
        // track is looked up among each candidate's rows, not listed for every song with it.
        let cases: [(String, lists: Int)] = [
            ("((albumartist == 'X') AND (album == 'Al1') AND (track == '1'))", 3),
            ("((album == 'Al1') AND (track == '1'))", 1), ("((albumartist == 'X') AND (disc == '1'))", 2),
            ("((album == 'Al1') AND (date != '2001'))", 1),
        ]
        for (expression, lists) in cases {
            let steps = try plan(try FilterExpression.parse(expression: expression, foldCase: false), in: library)
            #expect(steps.filter { $0.hasPrefix("LIST SUBQUERY") }.count == lists, "\(expression): \(steps)")
            #expect(steps.contains { $0.hasSuffix("USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)") }, "\(steps)")
        }
        // Alone, or beside other numbers only, the track's list is what drives the query.
        for expression in [
            "(track == '1')", "((track == '1') AND (disc == '1'))", "((track == '1') AND (title =~ 'o'))",
        ] {
            let steps = try plan(try FilterExpression.parse(expression: expression, foldCase: false), in: library)
            #expect(!steps.contains { $0.contains("rowid>?") }, "\(expression): \(steps)")
            #expect(steps.contains { $0.hasSuffix("songTag_value (tag=? AND value=?)") }, "\(expression): \(steps)")
        }
    }

    @Test func numberTermsCheckedPerSongMatchAsTheirLists() throws {
        let songs: [TestLibrary.Entry] = [
            ("a.mp3", tags((.album, "X"), (.track, "1"), (.date, "1999")), 1),
            ("b.mp3", tags((.album, "X"), (.track, "2"), (.disc, "1")), 1),
            ("c.mp3", tags((.album, "X"), (.title, "t"), (.track, "3"), (.track, "1")), 1),
            ("d.mp3", tags((.album, "Y"), (.track, "1")), 1),
            ("e.mp3", tags((.album, "X"), (.artist, "1")), 1),
            ("f.mp3", tags((.album, "X"), (.disc, "2"), (.track, "10"), (.date, "1999-05")), 1),
            ("g.mp3", tags((.albumArtist, "1"), (.track, "1")), 1),
        ]
        let library = try TestLibrary(songs)
        defer { library.remove() }
        func uris(_ expression: String, _ foldCase: Bool) throws -> Set<String> {
            let condition = FilterSQL.condition(try FilterExpression.parse(expression: expression, foldCase: foldCase))
            return Set(
                try library.read { db in
                    try String.fetchAll(
                        db, sql: "SELECT s.uri FROM song s WHERE \(condition.sql)",
                        arguments: StatementArguments(condition.arguments))
                })
        }
        let numberTerms = [
            "(track == '1')", "(track != '1')", "(track == '3')", "(track contains '1')", "(track starts_with '1')",
            "(track =~ '^1$')", "(track !~ '0')", "(disc == '1')", "(disc != '2')", "(date == '1999')",
            "(date starts_with '1999')", "(Track == '01')",
        ]
        // Each term alone is a list (it drives); beside the album's, it is tested per song. The
        // songs are the same: those of the album's list and of the term's.
        for term in numberTerms {
            for foldCase in [false, true] {
                let both = try uris("((album == 'X') AND \(term))", foldCase)
                let expected = try uris("(album == 'X')", foldCase).intersection(try uris(term, foldCase))
                #expect(both == expected, "\(term) foldCase \(foldCase)")
            }
        }
        #expect(try uris("((album == 'X') AND (track == '1'))", false) == ["a.mp3", "c.mp3"])
        #expect(try uris("((albumartist == '1') AND (track == '1'))", false) == ["g.mp3"])
    }

    /// The songs `expression` (a `search`) selects in `library`, by URI.
    private func search(_ expression: String, in library: TestLibrary) throws -> [String] {
        let condition = FilterSQL.condition(try FilterExpression.parse(expression: expression, foldCase: true))
        return try library.read { db in
            try String.fetchAll(
                db, sql: "SELECT s.uri FROM song s WHERE \(condition.sql) ORDER BY s.uri",
                arguments: StatementArguments(condition.arguments))
        }
    }

    @Test func trigramHitsKeepToTheirTagTypeAndFindLaterValues() throws {
        let library = try TestLibrary([
            ("a.mp3", tags((.artist, "Nightwish"), (.title, "one")), 1),
            ("b.mp3", tags((.title, "first"), (.artist, "x"), (.title, "Midnight")), 1),
            ("c.mp3", tags((.album, "ÜBER Nacht"), (.title, "Straße")), 1),
            ("d.mp3", tags((.title, "ni ght")), 1),
        ])
        defer { library.remove() }
        #expect(try search("(title contains 'night')", in: library) == ["b.mp3"])
        #expect(try search("(artist contains 'NIGHT')", in: library) == ["a.mp3"])
        #expect(try search("(album contains 'über')", in: library) == ["c.mp3"])
        #expect(try search("(any contains 'night')", in: library) == ["a.mp3", "b.mp3"])
        #expect(try search("(!(title contains 'night'))", in: library) == ["a.mp3", "c.mp3", "d.mp3"])
    }

    /// Songs for MPD's fallbacks: each tag with fallbacks present, absent, or standing in.
    private static let fallbackSongs: [TestLibrary.Entry] = [
        ("a.mp3", tags((.artist, "A"), (.albumArtist, "X")), 1),
        ("b.mp3", tags((.artist, "X")), 1),
        ("c.mp3", tags((.artist, "X"), (.albumArtist, "Y")), 1),
        ("d.mp3", tags((.artistSort, "X"), (.artist, "Z")), 1),
        ("e.mp3", tags((.albumArtistSort, "Q"), (.albumArtist, "X")), 1),
        ("f.mp3", tags((.albumArtist, "X"), (.artistSort, "W")), 1),
        ("g.mp3", [], nil),
        ("h.mp3", tags((.artist, "xylophone"), (.albumSort, "x sort"), (.album, "Al"), (.title, "T")), 1),
        ("i.mp3", tags((.albumArtist, "P"), (.albumArtist, "Xavier"), (.titleSort, "Q"), (.title, "X title")), 1),
        ("j.mp3", tags((.composer, "Xenakis"), (.album, "X album")), 1),
    ]

    /// MPD's `TagSongFilter::Match` for `value` on `tag`, written out over the song's tags.
    private static func mpdMatches(
        _ entry: TestLibrary.Entry, _ tag: TagType, _ value: (String) -> Bool, emptyMatches: Bool
    ) -> Bool {
        for candidate in [tag] + TagFallback.chain(for: tag) {
            let values = entry.tags.filter { $0.type == candidate }.map(\.value)
            if !values.isEmpty { return values.contains(where: value) }
        }
        return emptyMatches
    }

    @Test func tagsWithFallbacksMatchAsMPDDoes() throws {
        let library = try TestLibrary(Self.fallbackSongs)
        defer { library.remove() }
        let fallbackTags: [TagType] = [
            .albumArtist, .albumArtistSort, .artistSort, .albumSort, .titleSort, .composerSort,
        ]
        #expect(fallbackTags.allSatisfy { !TagFallback.chain(for: $0).isEmpty })
        let predicates: [(String, Bool, (String) -> Bool)] = [
            ("== 'X'", false, { $0 == "X" }),
            ("contains 'x'", true, { $0.lowercased().contains("x") }),
            ("contains 'xyl'", true, { $0.lowercased().contains("xyl") }),
            ("starts_with 'X'", false, { $0.hasPrefix("X") }),
            ("=~ '^X.'", false, { $0.hasPrefix("X") && $0.count > 1 }),
            ("== ''", false, { $0.isEmpty }),
        ]
        for tag in fallbackTags {
            for (operation, foldCase, matches) in predicates {
                for negated in [false, true] {
                    let expression = "(\(negated ? "!" : "")(\(tag.name) \(operation)))"
                    let filter = try FilterExpression.parse(expression: expression, foldCase: foldCase)
                    let condition = FilterSQL.condition(filter)
                    let uris = try library.read { db in
                        try String.fetchAll(
                            db, sql: "SELECT s.uri FROM song s WHERE \(condition.sql) ORDER BY s.uri",
                            arguments: StatementArguments(condition.arguments))
                    }
                    let expected = Self.fallbackSongs.filter { entry in
                        Self.mpdMatches(entry, tag, matches, emptyMatches: operation == "== ''") != negated
                    }.map(\.name)
                    #expect(uris == expected, "\(expression) foldCase \(foldCase)")
                }
            }
        }
    }

    @Test func walkPagesSeekTheirStartInsteadOfSorting() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        for kind in [WalkQuery.Kind.directories, .playlists, .songs, .songURIs] {
            for recursive in [false, true] {
                let sql = WalkQuery.sql(kind, recursive: recursive, limit: 200)
                let plan = try library.read { db in
                    try Row.fetchAll(
                        db, sql: "EXPLAIN QUERY PLAN " + sql,
                        arguments: StatementArguments(recursive ? [1, 2] : [1, 2, 3])
                    )
                    .map { $0["detail"] as String }
                }
                // Each page starts where the last ended in an index ordered by walk position.
                #expect(
                    !plan.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") },
                    "\(kind) \(recursive): \(plan)")
                #expect(plan.contains { $0.contains("ord>?") }, "\(kind) \(recursive): \(plan)")
            }
        }
    }

    @Test func tagRowIDsNameSongTagAndPlace() throws {
        let library = try TestLibrary([
            ("a.mp3", tags((.artist, "A1"), (.title, "T"), (.artist, "A2")), 1)
        ])
        defer { library.remove() }
        let rows = try library.read { db in
            try Row.fetchAll(db, sql: "SELECT id, song, tag, value FROM songTag ORDER BY id")
        }
        let song: Int64 = rows[0]["song"]
        #expect(
            rows.map { $0["id"] as Int64 } == [
                TagRowID.make(song: song, tag: TagType.artist.rawValue, index: 0),
                TagRowID.make(song: song, tag: TagType.artist.rawValue, index: 1),
                TagRowID.make(song: song, tag: TagType.title.rawValue, index: 0),
            ])
        #expect(rows.map { $0["value"] as String } == ["A1", "A2", "T"])
    }

    @Test func migrationV3RenumbersTagsAndRebuildsTheIndex() throws {
        let directory = NSTemporaryDirectory() + "tonearm-migration-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/db.sqlite"
        // A database as version 2 left it: songTag ids counted up across songs and tags.
        let old = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(old, upTo: "v2")
        try old.write { db in
            try db.execute(
                sql: """
                    INSERT INTO song (id, uri, directory, mtime, size, added) VALUES (7, 'x.mp3', 1, 1, 1, 1);
                    INSERT INTO songTag (song, tag, value, folded) VALUES
                        (7, \(TagType.title.rawValue), 'Tonight', 'tonight'),
                        (7, \(TagType.artist.rawValue), 'Nightwish', 'nightwish'),
                        (7, \(TagType.title.rawValue), 'Again', 'again');
                    """)
        }
        try old.close()
        let store = try LibraryStore(path: path)
        let ids = try store.pool.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM songTag ORDER BY id") }
        #expect(
            ids == [
                TagRowID.make(song: 7, tag: TagType.artist.rawValue, index: 0),
                TagRowID.make(song: 7, tag: TagType.title.rawValue, index: 0),
                TagRowID.make(song: 7, tag: TagType.title.rawValue, index: 1),
            ])
        let titles = try store.pool.read { db in
            try String.fetchAll(
                db,
                sql:
                    "SELECT t.value FROM songTag t WHERE t.id IN (SELECT rowid FROM songTagText WHERE songTagText MATCH '\"ight\"') ORDER BY t.id"
            )
        }
        #expect(titles == ["Nightwish", "Tonight"])
    }
}
