import MPDProtocol
import MusicModel
import Testing

@Suite("Search command arguments")
struct SelectionParserTests {
    private let artistX = FilterExpression.tag(.artist, StringPredicate(.equals, "x", foldCase: false))
    private let albumY = FilterExpression.tag(.album, StringPredicate(.equals, "y", foldCase: false))

    // MARK: - sort

    @Test("sort: tags, Last-Modified, Added, prio, descending")
    func sortOrders() throws {
        #expect(try SortOrder.parse("Artist", allowsPriority: false) == SortOrder(.tag(.artist)))
        #expect(
            try SortOrder.parse("-albumartistsort", allowsPriority: false)
                == SortOrder(.tag(.albumArtistSort), descending: true))
        #expect(try SortOrder.parse("Last-Modified", allowsPriority: false) == SortOrder(.lastModified))
        #expect(
            try SortOrder.parse("-last-modified", allowsPriority: false) == SortOrder(.lastModified, descending: true))
        #expect(try SortOrder.parse("ADDED", allowsPriority: false) == SortOrder(.added))
        #expect(try SortOrder.parse("prio", allowsPriority: true) == SortOrder(.priority))
        #expect(try SortOrder.parse("-Prio", allowsPriority: true) == SortOrder(.priority, descending: true))
        #expect(try SortOrder.parse("track", allowsPriority: true) == SortOrder(.tag(.track)))
    }

    @Test("sort: unknown keys")
    func sortErrors() {
        let unknown = MPDError(.argument, "Unknown sort tag")
        for bad in ["", "-", "--artist", "foo", "file", "prio", "Last_Modified", "artist\u{212A}"] {
            #expect(thrownError { try SortOrder.parse(bad, allowsPriority: false) } == unknown, "\(bad)")
        }
        #expect(thrownError { try SortOrder.parse("priority", allowsPriority: true) } == unknown)
    }

    // MARK: - find / search

    private func selection(_ arguments: [String], foldCase: Bool = false, position: Bool = false) throws
        -> DatabaseSelection
    {
        try DatabaseSelection.parse(arguments[...], foldCase: foldCase, allowsPosition: position)
    }

    @Test("find: filter, then sort, window and position from the end")
    func databaseSelection() throws {
        let expression = #"(artist == "x")"#
        #expect(try selection([expression]) == DatabaseSelection(filter: artistX))
        #expect(
            try selection([expression, "sort", "-Track", "window", "0:10"])
                == DatabaseSelection(
                    filter: artistX, sort: SortOrder(.tag(.track), descending: true),
                    window: RangeArgument(start: 0, end: 10)))
        #expect(
            try selection(["artist", "x", "window", "5:"])
                == DatabaseSelection(
                    filter: artistX, window: RangeArgument(start: 5, end: nil)))
        #expect(try selection([expression, "window", "-1"]) == DatabaseSelection(filter: artistX, window: .all))
        #expect(
            try selection([expression, "sort", "Added", "window", "2", "position", "+0"], position: true)
                == DatabaseSelection(
                    filter: artistX, sort: SortOrder(.added), window: RangeArgument(start: 2, end: 3),
                    position: "+0"))
        #expect(
            try selection(["artist", "x", "album", "y", "sort", "album"])
                == DatabaseSelection(filter: .and([artistX, albumY]), sort: SortOrder(.tag(.album))))
        #expect(
            try selection(["artist", "x"], foldCase: true)
                == DatabaseSelection(filter: .tag(.artist, StringPredicate(.contains, "x", foldCase: true))))
    }

    @Test("find: modifiers out of order or misspelt fall into the filter")
    func databaseSelectionOrder() {
        // `window` is removed before `sort`, so after it, it is not seen.
        #expect(
            thrownError { try selection([#"(artist == "x")"#, "window", "0:1", "sort", "artist"]) }
                == MPDError(.argument, "Unknown filter type"))
        #expect(
            thrownError { try selection([#"(artist == "x")"#, "SORT", "artist"]) }
                == MPDError(.argument, "Unknown filter type"))
        // `position` only where the command takes one.
        #expect(
            thrownError { try selection([#"(artist == "x")"#, "position", "0"]) }
                == MPDError(.argument, "Unknown filter type"))
        #expect(
            thrownError { try selection([#"(artist == "x")"#, "position", "0", "window", "0:1"], position: true) }
                == MPDError(.argument, "Unknown filter type"))
    }

    @Test("find: errors in the order MPD checks")
    func databaseSelectionErrors() {
        let count = MPDError(.argument, "Incorrect number of filter arguments")
        #expect(thrownError { try selection([]) } == count)
        #expect(thrownError { try selection(["sort", "artist"]) } == count)
        #expect(thrownError { try selection(["window", "0:1"]) } == count)
        #expect(thrownError { try selection(["position", "0"], position: true) } == count)
        #expect(thrownError { try selection([#"(artist == "x")"#, "window"]) } == count)
        #expect(thrownError { try selection([#"(artist == "x")"#, "extra"]) } == count)
        #expect(
            thrownError { try selection([#"(artist == "x")"#, "sort", "foo"]) }
                == MPDError(.argument, "Unknown sort tag"))
        #expect(
            thrownError { try selection([#"(artist == "x")"#, "sort", "prio"]) }
                == MPDError(.argument, "Unknown sort tag"))
        #expect(
            thrownError { try selection([#"(artist == "x")"#, "window", "5:2"]) }
                == MPDError(.argument, "Malformed range: 5:2"))
        #expect(
            thrownError { try selection([#"(artist == "x")"#, "window", "x"]) }
                == MPDError(.argument, "Integer or range expected: x"))
        // The window is checked before the sort tag, and both before the filter.
        #expect(
            thrownError { try selection([#"(foo == "x")"#, "sort", "foo", "window", "x"]) }
                == MPDError(.argument, "Integer or range expected: x"))
        #expect(
            thrownError { try selection([#"(foo == "x")"#, "sort", "foo"]) } == MPDError(.argument, "Unknown sort tag"))
        #expect(thrownError { try selection([#"(foo == "x")"#]) } == MPDError(.argument, "Unknown filter type: foo"))
    }

    // MARK: - list

    private func list(_ arguments: [String]) throws -> ListSelection { try ListSelection.parse(arguments[...]) }

    @Test("list: type, filter, groups in the order given, window")
    func listSelection() throws {
        #expect(try list(["album"]) == ListSelection(subject: .tag(.album), filter: nil))
        #expect(try list(["Album", #"(artist == "x")"#]) == ListSelection(subject: .tag(.album), filter: artistX))
        #expect(
            try list(["album", "artist", "x", "album", "y"])
                == ListSelection(
                    subject: .tag(.album), filter: .and([artistX, albumY])))
        #expect(
            try list(["album", "group", "albumartist", "group", "date"])
                == ListSelection(subject: .tag(.album), filter: nil, groups: [.albumArtist, .date]))
        #expect(
            try list(["title", #"(artist == "x")"#, "group", "album", "window", "0:5"])
                == ListSelection(
                    subject: .tag(.title), filter: artistX, groups: [.album], window: RangeArgument(start: 0, end: 5)))
        #expect(
            try list(["album", "window", "3:"])
                == ListSelection(
                    subject: .tag(.album), filter: nil, window: RangeArgument(start: 3, end: nil)))
    }

    @Test("list album ARTIST: the pre-0.12 form, exact, only for Album")
    func listCompatibility() throws {
        #expect(try list(["album", "x"]) == ListSelection(subject: .tag(.album), filter: artistX))
        #expect(
            try list(["ALBUM", "x", "window", "0:1"])
                == ListSelection(
                    subject: .tag(.album), filter: artistX, window: RangeArgument(start: 0, end: 1)))
        #expect(
            try list(["album", ""])
                == ListSelection(
                    subject: .tag(.album), filter: .tag(.artist, StringPredicate(.equals, "", foldCase: false))))
        // A lone `group` is an artist's name here, not a keyword.
        #expect(
            try list(["album", "group"])
                == ListSelection(
                    subject: .tag(.album), filter: .tag(.artist, StringPredicate(.equals, "group", foldCase: false))))
        #expect(
            thrownError { try list(["artist", "x"]) } == MPDError(.argument, #"should be "Album" for 3 arguments"#))
        // With a group after it, the lone value is a broken filter instead.
        #expect(
            thrownError { try list(["album", "x", "group", "date"]) }
                == MPDError(.argument, "Incorrect number of filter arguments"))
    }

    @Test("list file: song URIs, everything after it is the filter")
    func listFile() throws {
        #expect(try list(["file"]) == ListSelection(subject: .uri, filter: nil))
        #expect(try list(["FileName", "artist", "x"]) == ListSelection(subject: .uri, filter: artistX))
        #expect(thrownError { try list(["file", "x"]) } == MPDError(.argument, "Incorrect number of filter arguments"))
        #expect(thrownError { try list(["file", "group", "artist"]) } == MPDError(.argument, "Unknown filter type"))
    }

    @Test("list: errors")
    func listErrors() {
        let conflict = MPDError(.argument, "Conflicting group")
        #expect(thrownError { try list(["foo"]) } == MPDError(.argument, "Unknown tag type: foo"))
        #expect(thrownError { try list(["any"]) } == MPDError(.argument, "Unknown tag type: any"))
        #expect(thrownError { try list(["album", "group", "foo"]) } == MPDError(.argument, "Unknown tag type: foo"))
        #expect(thrownError { try list(["album", "group", "album"]) } == conflict)
        #expect(thrownError { try list(["Album", "group", "ALBUM"]) } == conflict)
        #expect(thrownError { try list(["album", "group", "artist", "group", "artist"]) } == conflict)
        // Groups are checked before the filter is parsed.
        #expect(thrownError { try list(["album", "foo", "group", "album"]) } == conflict)
        #expect(
            thrownError { try list(["album", "window", "x"]) } == MPDError(.argument, "Integer or range expected: x"))
        #expect(
            thrownError { try list(["album", "artist", "x", "window", "0:1", "group", "date"]) }
                == MPDError(.argument, "Unknown filter type"))
        #expect(
            thrownError { try list(["album", #"(foo == "x")"#]) } == MPDError(.argument, "Unknown filter type: foo"))
        #expect(thrownError { try list([]) } != nil)
    }

    // MARK: - count

    private func count(_ arguments: [String], foldCase: Bool = false) throws -> CountSelection {
        try CountSelection.parse(arguments[...], foldCase: foldCase)
    }

    @Test("count: filter and an optional group; the filter may be empty with a group")
    func countSelection() throws {
        #expect(try count(["group", "artist"]) == CountSelection(filter: nil, group: .artist))
        #expect(try count(["artist", "x"]) == CountSelection(filter: artistX))
        #expect(try count([#"(artist == "x")"#, "group", "Album"]) == CountSelection(filter: artistX, group: .album))
        #expect(
            try count(["artist", "x"], foldCase: true)
                == CountSelection(filter: .tag(.artist, StringPredicate(.contains, "x", foldCase: true))))
    }

    @Test("count: errors")
    func countErrors() {
        let incorrect = MPDError(.argument, "Incorrect number of filter arguments")
        #expect(thrownError { try count([]) } == incorrect)
        #expect(thrownError { try count(["artist"]) } == incorrect)
        #expect(thrownError { try count(["group", "foo"]) } == MPDError(.argument, "Unknown tag type: foo"))
        #expect(
            thrownError { try count(["artist", "x", "group", "artist", "group", "album"]) }
                == MPDError(.argument, "Unknown filter type"))
    }
}
