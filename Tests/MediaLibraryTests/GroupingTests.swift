import Foundation
import GRDB
import MPDProtocol
import MusicModel
import Testing

@testable import MediaLibrary

@Suite("Grouping (list and count … group)")
struct GroupingTests {
    @Test func listWithAGroupUsesFallbacksAndEmptyValuesInByteOrder() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let rows = try everySong(library, [.albumArtist, .album])
        #expect(rows == [["", ""], ["A", "Al2"], ["B", "Al1"], ["B", "Al2"], ["X", "Al1"], ["a", "Äl"]])
    }

    @Test func listOneTag() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let rows = try everySong(library, [.artist])
        #expect(rows == [[""], ["A"], ["B"], ["a"]])
    }

    @Test func listThreeLevelsCombinesEveryValue() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let rows = try everySong(library, [.album, .artist, .title])
        #expect(
            rows == [
                ["", "", ""], ["Al1", "A", "five"], ["Al1", "A", "five b"], ["Al1", "A", "one"], ["Al1", "B", "two"],
                ["Al2", "A", ""], ["Al2", "B", ""], ["Äl", "a", ""],
            ])
    }

    @Test func listWithAFilterGroupsOnlyTheMatchingSongs() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let filter = try FilterExpression.parse(expression: "(artist == 'B')", foldCase: false)
        let rows = try library.read {
            try Library.combinations($0, FilterSQL.condition(filter), levels: [.album], cache: library.store.tagColumns)
        }
        #expect(rows == [["Al1"], ["Al2"]])
    }

    @Test func windowCountsOutermostValues() {
        let rows = [["", ""], ["A", "Al2"], ["B", "Al1"], ["B", "Al2"], ["X", "Al1"]]
        #expect(
            Library.windowed(rows, RangeArgument(start: 1, end: 3)) == [["A", "Al2"], ["B", "Al1"], ["B", "Al2"]])
        #expect(Library.windowed(rows, RangeArgument(start: 3, end: nil)) == [["X", "Al1"]])
        #expect(Library.windowed(rows, RangeArgument(start: 9, end: 12)).isEmpty)
    }

    @Test func countGroupCountsEachSongOncePerDistinctValue() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let groups = try everySong(library, group: .artist)
        #expect(
            groups == [
                CountGroup(value: "", songs: 1, playtime: 0),
                CountGroup(value: "A", songs: 4, playtime: 95),
                CountGroup(value: "B", songs: 2, playtime: 50),
                CountGroup(value: "a", songs: 1, playtime: 60),
            ])
    }

    @Test func countGroupFallsBackFromAlbumArtistToArtist() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let filter = try FilterExpression.parse(expression: "(album != 'Äl')", foldCase: false)
        let groups = try library.read {
            try Library.countGroups(
                $0, FilterSQL.condition(filter), group: .albumArtist, cache: library.store.tagColumns)
        }
        #expect(
            groups == [
                CountGroup(value: "", songs: 1, playtime: 0),
                CountGroup(value: "A", songs: 1, playtime: 30),
                CountGroup(value: "B", songs: 2, playtime: 50),
                CountGroup(value: "X", songs: 3, playtime: 65),
            ])
    }
}

@Suite("Cached groupings (TagColumnCache)")
struct TagColumnCacheTests {
    @Test func aNewGenerationIsReadAfresh() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let cache = library.store.tagColumns
        #expect(try everySong(library, [.artist]) == [[""], ["A"], ["B"], ["a"]])
        try library.store.pool.write { db in
            try SongWriter.write(
                DiskTree.File(uri: "7.mp3", mtime: 1, size: 1),
                FileMetadata(tags: tags((.artist, "C")), duration: 7), directory: 1, existing: nil, now: 1, db)
            try LibraryStore.raiseGeneration(db)
        }
        #expect(
            try library.read { try Library.combinations($0, nil, levels: [.artist], cache: cache) } == [
                [""], ["A"], ["B"], ["C"], ["a"],
            ])
        let groups = try library.read { try Library.countGroups($0, nil, group: .artist, cache: cache) }
        #expect(groups.last(where: { $0.value == "C" }) == CountGroup(value: "C", songs: 1, playtime: 7))
    }

    @Test func columnsAreSharedBetweenQueriesAndBuiltAgainAfterRemoval() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let cache = library.store.tagColumns
        // Levels in changing combinations, some built with others, then the first ones again.
        let tagSets: [[TagType]] = [
            [.albumArtist, .album], [.album], [.title], [.genre], [.date], [.composer],
            [.performer, .artist], [.albumArtist, .album], [.artist, .title, .album],
        ]
        for levels in tagSets {
            let scanned = try library.read { try Library.combinations($0, .alwaysTrue, levels: levels, cache: cache) }
            #expect(try library.read { try Library.combinations($0, nil, levels: levels, cache: cache) } == scanned)
        }
        let scanned = try library.read { try Library.countGroups($0, .alwaysTrue, group: .albumArtist, cache: cache) }
        #expect(try library.read { try Library.countGroups($0, nil, group: .albumArtist, cache: cache) } == scanned)
        cache.removeAll()
        #expect(
            try everySong(library, [.albumArtist, .album]) == [
                ["", ""], ["A", "Al2"], ["B", "Al1"], ["B", "Al2"], ["X", "Al1"], ["a", "Äl"],
            ])
    }

    /// A database emptied in place after damage carries its generations on: the columns built
    /// for its first state are kept, as for any other state.
    @Test func aDatabaseEmptiedInPlaceKeepsWhatIsBuiltForIt() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let cache = library.store.tagColumns
        func add(_ uri: String, artist: String, raising: Bool) throws {
            try library.store.pool.write { db in
                try SongWriter.write(
                    DiskTree.File(uri: uri, mtime: 1, size: 1),
                    FileMetadata(tags: tags((.artist, artist)), duration: 7), directory: 1, existing: nil, now: 1, db)
                if raising { try LibraryStore.raiseGeneration(db) }
            }
        }
        try add("7.mp3", artist: "C", raising: true)
        try add("8.mp3", artist: "D", raising: true)
        #expect(try everySong(library, [.artist]) == [[""], ["A"], ["B"], ["C"], ["D"], ["a"]])
        let seen = cache.generationSeen
        try library.store.reset(
            keepingCopyAt: library.directory + "/damaged.sqlite", of: library.directory + "/db.sqlite")
        try add("9.mp3", artist: "E", raising: false)
        #expect(try everySong(library, [.artist]) == [["E"]])
        #expect(cache.generationSeen > seen)
        #expect(cache.holds([.artist]))
    }
}

extension TagColumnCacheTests {
    @Test func theBudgetKeepsTheMostRecentlyUsedColumnsThatFit() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        func build(_ tag: TagType, _ cache: TagColumnCache) throws -> TagColumn {
            try library.read { try cache.columns([tag], $0).columns[0] }
        }
        let roomy = TagColumnCache()
        #expect(!roomy.holds([.artist]))
        let sizes = try [TagType.artist, .album, .genre].map { try build($0, roomy).footprint }
        #expect(Set(roomy.keptTags) == [.artist, .album, .genre])
        #expect(roomy.holds([.genre, .artist]) && roomy.holds([]))
        #expect(!roomy.holds([.album, .title]))

        let tight = TagColumnCache(budget: sizes[1] + sizes[2])
        for tag in [TagType.artist, .album, .genre] { _ = try build(tag, tight) }
        #expect(tight.keptTags == [.genre, .album])
        #expect(!tight.holds([.artist]))
        // A column used again becomes the most recently used.
        _ = try build(.album, tight)
        #expect(tight.keptTags == [.album, .genre])

        let none = TagColumnCache(budget: 0)
        let rows = try library.read { try Library.combinations($0, nil, levels: [.albumArtist, .album], cache: none) }
        #expect(rows == [["", ""], ["A", "Al2"], ["B", "Al1"], ["B", "Al2"], ["X", "Al1"], ["a", "Äl"]])
        #expect(none.keptTags.isEmpty)
        #expect(!none.holds([.album]))
        roomy.removeAll()
        #expect(!roomy.holds([.artist]) && !roomy.holds([]))
    }
}

/// `list`'s combinations over every song, checked by ``threeWays(_:_:)``.
private func everySong(_ library: TestLibrary, _ levels: [TagType]) throws -> [[String]] {
    try threeWays(library) { try Library.combinations($0, $1, levels: levels, cache: $2) }
}

/// `count … group` over every song, checked by ``threeWays(_:_:)``.
private func everySong(_ library: TestLibrary, group: TagType) throws -> [CountGroup] {
    try threeWays(library) { try Library.countGroups($0, $1, group: group, cache: $2) }
}

/// A grouping over every song three ways, which must agree: from the library's cached columns
/// (built on first use or reused), again (reused), and by scanning the songs.
private func threeWays<T: Equatable>(
    _ library: TestLibrary,
    _ query: (Database, SQLFragment?, TagColumnCache) throws -> T
) throws -> T {
    let cache = library.store.tagColumns
    let first = try library.read { try query($0, nil, cache) }
    let again = try library.read { try query($0, nil, cache) }
    let scanned = try library.read { try query($0, .alwaysTrue, cache) }
    #expect(first == again)
    #expect(first == scanned)
    return first
}

@Suite("Interner")
struct InternerTests {
    private func intern(_ values: [String]) -> (Interner, [Int32]) {
        var interner = Interner()
        let ids = values.map { value in
            var value = value
            return value.withUTF8 { interner.id(of: UnsafeRawBufferPointer($0)) }
        }
        return (interner, ids)
    }

    @Test func numbersEachDistinctValueOnce() {
        let values = (0..<500).map { "value \($0 % 200)" } + ["", "", "value 3"]
        let (interner, ids) = intern(values)
        #expect(interner.count == 201)
        #expect(ids[0] == ids[200] && ids[3] == ids[502] && ids[500] == ids[501])
        #expect(zip(values, ids).allSatisfy { interner.string($0.1) == $0.0 })
    }

    @Test func sortsByUTF8BytesLikeStrcmp() {
        let values = ["b", "", "Ä", "a", "B", "abcdefgh", "abcdefgh\u{0}", "abcdefghi", "abcdefgg", "Z"]
        let (interner, ids) = intern(values)
        let order = interner.byteOrder()
        #expect(
            order.ids.map(interner.string) == [
                "", "B", "Z", "a", "abcdefgg", "abcdefgh", "abcdefgh\u{0}", "abcdefghi", "b", "Ä",
            ])
        #expect(ids.map { order.ranks[Int($0)] } == [8, 0, 9, 3, 1, 5, 6, 7, 4, 2])
    }
}
