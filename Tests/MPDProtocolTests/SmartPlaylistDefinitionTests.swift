import MPDProtocol
import MusicModel
import Testing

/// A smart playlist's rule: its file, the `smartplaylist` command's arguments, and the terms
/// a rule's filter has beyond MPD's (sticker comparisons, relative times).
@Suite struct SmartPlaylistDefinitionTests {
    static let now: Int64 = 1_800_000_000

    static func rule(_ expression: String) throws(MPDError) -> FilterExpression {
        try FilterExpression.parse(expression: expression, foldCase: true, dialect: .smartPlaylist(now: now))
    }

    @Test func aFileOfFiltersSortAndLimitReadsIntoARule() throws {
        let text = """
            # Played jazz, most played first

            filter: (genre == "Jazz")\r
              filter:(sticker:playCount>=1)
            sort: -sticker:playCount
            limit: 25
            """
        let definition = try SmartPlaylistDefinition(fileText: text)
        #expect(definition.filters == ["(genre == \"Jazz\")", "(sticker:playCount>=1)"])
        #expect(definition.sort == "-sticker:playCount" && definition.limit == 25)
        let rule = try definition.rule(now: Self.now)
        #expect(
            rule.filter
                == .and([
                    .tag(.genre, StringPredicate(.equals, "Jazz", foldCase: true)),
                    .sticker("playCount", StickerValuePredicate(.greaterOrEqual, 1)),
                ]))
        #expect(rule.sort == SmartPlaylistRule.Sort(.sticker("playCount"), descending: true))
        #expect(rule.limit == 25 && rule.stickerNames == ["playCount"])
    }

    @Test func aFileWithoutFiltersChoosesEverySong() throws {
        let rule = try SmartPlaylistDefinition(fileText: "sort: Added\n").rule(now: Self.now)
        #expect(rule.filter == nil && rule.sort == SmartPlaylistRule.Sort(.library(.added)) && rule.limit == nil)
    }

    @Test func theFileTextReadsBackAsTheSameDefinition() throws {
        let definition = SmartPlaylistDefinition(
            filters: ["(added-since '-2w')", "(sticker:rating > 6)"], sort: "Artist", limit: 3)
        #expect(try SmartPlaylistDefinition(fileText: definition.fileText) == definition)
        #expect(definition.fileText.hasPrefix("# Tonearm smart playlist"))
    }

    @Test func relativeTimesCountBackFromNow() throws {
        #expect(try Self.rule("(added-since '-30d')") == .addedSince(Self.now - 30 * 86_400))
        #expect(try Self.rule("(modified-since \"-12h\")") == .modifiedSince(Self.now - 12 * 3600))
        #expect(
            try Self.rule("(sticker:lastPlayed >= -1w)")
                == .sticker("lastPlayed", .init(.greaterOrEqual, Self.now - 604_800)))
        #expect(try Self.rule("(sticker:lastPlayed < '-90s')") == .sticker("lastPlayed", .init(.less, Self.now - 90)))
        // The same text read later selects a later time: the file keeps the text, not the time.
        let later = try SmartPlaylistDefinition(filters: ["(added-since '-1d')"]).rule(now: Self.now + 10)
        #expect(later.filter == .addedSince(Self.now + 10 - 86_400))
        // MPD's own forms still work.
        #expect(try Self.rule("(added-since '2024-01-01')") == .addedSince(1_704_067_200))
    }

    @Test func stickerTermsTakeEveryComparisonAndQuotedOrBareOperands() throws {
        let cases: [(String, StickerValuePredicate.Comparison, Int64)] = [
            ("(sticker:rating == 10)", .equal, 10), ("(sticker:rating != '0')", .notEqual, 0),
            ("(sticker:rating < -3)", .less, -3), ("(sticker:rating <= \"4\")", .lessOrEqual, 4),
            ("(sticker:rating > +5)", .greater, 5), ("(sticker:rating>=8)", .greaterOrEqual, 8),
        ]
        for (text, comparison, operand) in cases {
            #expect(try Self.rule(text) == .sticker("rating", StickerValuePredicate(comparison, operand)), "\(text)")
        }
        #expect(try Self.rule("(sticker:my_tag.v2 == 1)") == .sticker("my_tag.v2", .init(.equal, 1)))
        #expect(try Self.rule("(!(sticker:playCount > 0))") == .not(.sticker("playCount", .init(.greater, 0))))
    }

    @Test func stickerPredicatesTreatAMissingStickerAsZero() {
        #expect(StickerValuePredicate(.equal, 0).holds(0))
        #expect(!StickerValuePredicate(.greaterOrEqual, 1).holds(0))
        #expect(StickerValuePredicate(.lessOrEqual, 5).holds(5) && !StickerValuePredicate(.less, 5).holds(5))
        #expect(StickerValuePredicate(.notEqual, 3).holds(4) && !StickerValuePredicate(.notEqual, 3).holds(3))
    }

    @Test func badStickerTermsSayWhatIsWrong() {
        let cases: [(String, String)] = [
            ("(sticker: == 1)", "Sticker name expected after 'sticker:'"),
            ("(sticker:rating ~ 1)", "Unknown sticker operator: ~ 1); expected ==, !=, <, <=, >, >="),
            ("(sticker:rating == 'x')", "Integer or relative time expected: x"),
            ("(sticker:rating == -3m)", "Integer or relative time expected: -3m"),
            ("(sticker:rating == )", "Integer or relative time expected: "),
            ("(sticker:rating == 1", "')' expected"),
            ("(added-since '-3y')", "Failed to parse date"),
        ]
        for (text, message) in cases {
            #expect(throws: MPDError(.argument, message), "\(text)") { try Self.rule(text) }
        }
    }

    @Test func theProtocolsFiltersKnowNoStickerTerms() {
        #expect(throws: MPDError(.argument, "Unknown filter type: sticker")) {
            try FilterExpression.parse(expression: "(sticker:rating == 1)", foldCase: false)
        }
        #expect(throws: MPDError(.argument, "Failed to parse date")) {
            try FilterExpression.parse(expression: "(added-since '-30d')", foldCase: false)
        }
    }

    @Test func aBadLineIsNamedByItsNumber() {
        let cases: [(String, Int, String)] = [
            ("filter: (artist == 'x')\nsort Artist\n", 2, "expected KEY: VALUE (filter, sort or limit)"),
            ("# c\n\nlimits: 3\n", 3, "unknown key \"limits\"; expected filter, sort or limit"),
            ("filter: (artist == 'x')\nfilter: (bogus == 'y')\n", 2, "Unknown filter type: bogus"),
            ("filter: artist == 'x'\n", 1, "'(' expected"),
            ("sort: Artist\nsort: -Added\n", 2, "sort is given twice"),
            ("sort: -Colour\n", 1, "Unknown sort tag"),
            ("sort: sticker:\n", 1, "Bad sticker name: "),
            ("limit: 0\n", 1, "limit must be 1 or more"),
            ("limit: many\n", 1, "Integer expected: many"),
            ("limit: 5\nlimit: 6\n", 2, "limit is given twice"),
        ]
        for (text, line, message) in cases {
            #expect(throws: SmartPlaylistSyntaxError(line: line, message), "\(text)") {
                try SmartPlaylistDefinition(fileText: text)
            }
        }
    }

    @Test func theCallersCheckOfAFilterNamesItsLineToo() {
        #expect(throws: SmartPlaylistSyntaxError(line: 3, "regex refused")) {
            try SmartPlaylistDefinition(fileText: "sort: Title\n\nfilter: (title =~ '(')\n") { filter in
                if case .tag(_, let predicate) = filter, predicate.operator == .regex { return "regex refused" }
                return nil
            }
        }
    }

    @Test func theCommandsArgumentsAreFiltersThenSortThenLimit() throws {
        let definition = try SmartPlaylistDefinition(
            arguments: ["(artist == 'x')", "(sticker:rating >= 8)", "sort", "-sticker:rating", "limit", "10"])
        #expect(definition.filters == ["(artist == 'x')", "(sticker:rating >= 8)"])
        #expect(definition.sort == "-sticker:rating" && definition.limit == 10)
        let plain = try SmartPlaylistDefinition(arguments: ["(base 'Jazz')"])
        #expect(plain == SmartPlaylistDefinition(filters: ["(base 'Jazz')"]))
        // Taken off the end in that order: a limit before a sort is a filter argument.
        #expect(throws: MPDError(.argument, "A smart playlist's filter is an expression in parentheses: limit")) {
            try SmartPlaylistDefinition(arguments: ["(base 'x')", "limit", "2", "sort", "Title"])
        }
    }

    @Test func badArgumentsOfTheCommandAreRefused() {
        let cases: [([String], String)] = [
            (["sort", "Title"], "Incorrect number of filter arguments"),
            (["artist", "x"], "A smart playlist's filter is an expression in parentheses: artist"),
            (["(title == 'a\nb')"], "A smart playlist's filter cannot hold a line break"),
            (["(nope == 'x')"], "Unknown filter type: nope"),
            (["(base 'x')", "sort", "Nope"], "Unknown sort tag"),
            (["(base 'x')", "limit", "-1"], "limit must be 1 or more"),
            (["(base 'x')", "limit", "1x"], "Integer expected: 1x"),
        ]
        for (arguments, message) in cases {
            #expect(throws: MPDError(.argument, message), "\(arguments)") {
                try SmartPlaylistDefinition(arguments: arguments[...])
            }
        }
    }

    @Test func aStickerTermPrintsAsItIsWritten() throws {
        #expect(try Self.rule("(sticker:rating>='8')").mpdExpression == "(sticker:rating >= 8)")
    }
}
