import MPDProtocol
import MusicModel
import Testing

@Suite("Filter expressions")
struct FilterParserTests {
    private func expr(_ text: String, foldCase: Bool = false) throws -> FilterExpression {
        try FilterExpression.parse(expression: text, foldCase: foldCase)
    }

    /// The ACK 2 message parsing `text` fails with, or `nil`.
    private func message(_ text: String, foldCase: Bool = false) -> String? {
        guard let failure = thrownError({ try expr(text, foldCase: foldCase) }) else { return nil }
        #expect(failure.code == .argument)
        return failure.message
    }

    private func args(_ arguments: [String], foldCase: Bool = false) throws -> FilterExpression {
        try FilterExpression.parse(arguments[...], foldCase: foldCase)
    }

    private func equals(_ value: String, fold: Bool = false, negated: Bool = false) -> StringPredicate {
        StringPredicate(.equals, value, negated: negated, foldCase: fold)
    }

    @Test("tag comparisons with == and !=, with and without blanks")
    func equality() throws {
        #expect(try expr(#"(artist == "x")"#) == .tag(.artist, equals("x")))
        #expect(try expr(#"(Artist=="x")"#) == .tag(.artist, equals("x")))
        #expect(try expr(#"(  ALBUM   !=   'y'   )"#) == .tag(.album, equals("y", negated: true)))
        #expect(try expr(#"(artist == "x")"#, foldCase: true) == .tag(.artist, equals("x", fold: true)))
        #expect(try expr(#"(MUSICBRAINZ_TRACKID == "id")"#) == .tag(.musicBrainzTrackID, equals("id")))
        #expect(try expr(#"(artist == "")"#) == .tag(.artist, equals("")))
        #expect(try expr("(artist == \"x\")\t \n") == .tag(.artist, equals("x")))
    }

    @Test("any, file and filename compare values and URIs")
    func specialStringTypes() throws {
        #expect(try expr(#"(any contains "x")"#) == .anyTag(StringPredicate(.contains, "x", foldCase: false)))
        #expect(try expr(#"(ANY == "x")"#) == .anyTag(equals("x")))
        #expect(try expr(#"(file == "a/b.flac")"#) == .uri(equals("a/b.flac")))
        #expect(try expr(#"(FileName != "a")"#) == .uri(equals("a", negated: true)))
    }

    @Test("word operators, their case overrides and negations")
    func wordOperators() throws {
        let cases: [(String, StringPredicate.Operator, Bool, Bool?)] = [
            ("contains", .contains, false, nil), ("!contains", .contains, true, nil),
            ("contains_cs", .contains, false, false), ("!contains_cs", .contains, true, false),
            ("contains_ci", .contains, false, true), ("!contains_ci", .contains, true, true),
            ("starts_with", .startsWith, false, nil), ("!starts_with", .startsWith, true, nil),
            ("starts_with_cs", .startsWith, false, false), ("!starts_with_cs", .startsWith, true, false),
            ("starts_with_ci", .startsWith, false, true), ("!starts_with_ci", .startsWith, true, true),
            ("eq_cs", .equals, false, false), ("!eq_cs", .equals, true, false),
            ("eq_ci", .equals, false, true), ("!eq_ci", .equals, true, true),
        ]
        for (word, op, negated, fold) in cases {
            for commandFolds in [false, true] {
                let parsed = try expr("(title \(word) 'v')", foldCase: commandFolds)
                #expect(
                    parsed == .tag(.title, StringPredicate(op, "v", negated: negated, foldCase: fold ?? commandFolds)))
            }
            // Matched without case.
            #expect(try expr("(title \(word.uppercased()) 'v')") == expr("(title \(word) 'v')"))
            // The trailing space is part of the operator.
            #expect(message("(title \(word)'v')") == "Unknown filter operator: \(word)'v')")
        }
    }

    @Test("=~ and !~ are regular expressions with the command's case folding")
    func regex() throws {
        #expect(try expr(#"(artist =~ "^a.*b$")"#) == .tag(.artist, StringPredicate(.regex, "^a.*b$", foldCase: false)))
        #expect(
            try expr(#"(artist!~"x")"#, foldCase: true)
                == .tag(.artist, StringPredicate(.regex, "x", negated: true, foldCase: true)))
    }

    @Test("quoting: both quote characters, backslash escapes, length limit")
    func quoting() throws {
        #expect(try expr(#"(artist == "a\"b")"#) == .tag(.artist, equals("a\"b")))
        #expect(try expr(#"(artist == 'a\'b')"#) == .tag(.artist, equals("a'b")))
        #expect(try expr(#"(artist == "it's")"#) == .tag(.artist, equals("it's")))
        #expect(try expr(#"(artist == "back\\slash\x")"#) == .tag(.artist, equals("back\\slashx")))
        #expect(try expr("(artist == \"Björk ✓\")") == .tag(.artist, equals("Björk ✓")))
        let longest = String(repeating: "a", count: 4095)
        #expect(try expr("(artist == \"\(longest)\")") == .tag(.artist, equals(longest)))
        #expect(message("(artist == \"\(longest)a\")") == "Quoted value is too long")
        #expect(message(#"(artist == x)"#) == "Quoted string expected")
        #expect(message(#"(artist == "x"#) == "Closing quote not found")
        #expect(message(#"(artist == "x\"#) == "Closing quote not found")
        #expect(message(#"(artist == "x')"#) == "Closing quote not found")
    }

    @Test("AND, nesting and negation")
    func structure() throws {
        let a = FilterExpression.tag(.artist, equals("x"))
        let b = FilterExpression.tag(.album, equals("y"))
        let c = FilterExpression.tag(.title, equals("z"))
        #expect(try expr(#"((artist == "x") AND (album == "y"))"#) == .and([a, b]))
        #expect(try expr(#"((artist == "x")AND(album == "y"))"#) == .and([a, b]))
        #expect(try expr(#"((artist == "x") AND (album == "y") AND (title == "z"))"#) == .and([a, b, c]))
        #expect(try expr(#"(((artist == "x") AND (album == "y")) AND (title == "z"))"#) == .and([.and([a, b]), c]))
        #expect(try expr(#"((artist == "x"))"#) == a)
        #expect(try expr(#"(((artist == "x")) AND (album == "y"))"#) == .and([a, b]))
        #expect(try expr(#"((artist == "x")) "#) == a)
        #expect(try expr(#"(!(artist == "x"))"#) == .not(a))
        #expect(try expr(#"(!  (artist == "x") )"#) == .not(a))
        #expect(try expr(#"(!(!(artist == "x")))"#) == .not(.not(a)))
        #expect(try expr(#"((!(artist == "x")) AND (album == "y"))"#) == .and([.not(a), b]))
    }

    @Test("structural errors carry MPD's messages")
    func structuralErrors() {
        #expect(message(#"((artist == "x") and (album == "y"))"#) == "'AND' expected")
        #expect(message(#"((artist == "x") OR (album == "y"))"#) == "'AND' expected")
        #expect(message(#"((artist == "x") AND album == "y"))"#) == "'(' expected")
        #expect(message(#"((artist == "x") AND (album == "y") (title == "z"))"#) == "Word expected")
        #expect(message(#"((artist == "x") AND)"#) == "'(' expected")
        #expect(message(#"((artist == "x")"#) == "Word expected")
        #expect(message("(") == "Word expected")
        #expect(message("()") == "Word expected")
        #expect(message(#"(1artist == "x")"#) == "Word expected")
        #expect(message(#"(!artist == "x")"#) == "'(' expected")
        #expect(message(#"(!!(artist == "x"))"#) == "'(' expected")
        #expect(message(#"(!(artist == "x")"#) == "')' expected")
        #expect(message(#"(artist == "x" "#) == "')' expected")
        #expect(message(#"(artist == "x""))"#) == "')' expected")
        #expect(message(#"(artist == "x")(album == "y")"#) == "Unparsed garbage after expression")
        #expect(message(#"(artist == "x") x"#) == "Unparsed garbage after expression")
        #expect(message(#" (artist == "x")"#) == "'(' expected")
        #expect(message(#"artist == "x""#) == "'(' expected")
        #expect(message("") == "'(' expected")
    }

    @Test("types: unknown names, and which are case-sensitive")
    func types() throws {
        #expect(message(#"(foo == "x")"#) == "Unknown filter type: foo")
        #expect(message(#"(Artist_X == "x")"#) == "Unknown filter type: Artist_X")
        #expect(message(#"(BASE "x")"#) == "Unknown filter type: BASE")
        #expect(message(#"(Modified-since "2024-01-01")"#) == "Unknown filter type: Modified-since")
        #expect(message(#"(Added-Since "2024-01-01")"#) == "Unknown filter type: Added-Since")
        #expect(message(#"(artist <> "x")"#) == #"Unknown filter operator: <> "x")"#)
        #expect(message(#"(artist = "x")"#) == #"Unknown filter operator: = "x")"#)
        // MPD keeps the blank before the (empty) rest.
        #expect(message(#"(artist"#) == "Unknown filter operator: ")
        #expect(try expr(#"(audioformat == "44100:16:2")"#) == expr(#"(AudioFormat == "44100:16:2")"#))
        #expect(try expr("(PRIO >= 1)") == .priorityAtLeast(1))
    }

    @Test("base takes a quoted directory without an operator")
    func base() throws {
        #expect(try expr(#"(base "Artist/Album")"#) == .base("Artist/Album"))
        #expect(try expr(#"(base "")"#) == .base(""))
        #expect(message(#"(base == "x")"#) == "Quoted string expected")
        #expect(message(#"(base "x" x)"#) == "')' expected")
    }

    @Test("prio >= N")
    func priority() throws {
        #expect(try expr("(prio >= 3)") == .priorityAtLeast(3))
        #expect(try expr("(prio>=255)  ") == .priorityAtLeast(255))
        #expect(try expr("(prio >= +0)") == .priorityAtLeast(0))
        #expect(message("(prio >= 256)") == "Invalid priority value")
        #expect(message("(prio >= -1)") == "Invalid priority value")
        #expect(message("(prio >= 99999999999999999999999)") == "Invalid priority value")
        #expect(message("(prio >= x)") == "Number expected")
        #expect(message("(prio >= )") == "Number expected")
        #expect(message("(prio > 3)") == "'>=' expected")
        #expect(message("(prio == 3)") == "'>=' expected")
        #expect(message("(prio >= 3 )") == "')' expected")
        #expect(message("(prio >= 3x)") == "')' expected")
    }

    @Test("nesting is limited to 64 levels")
    func nestingLimit() throws {
        let deepest = String(repeating: "(!", count: 63) + #"(artist == "x")"# + String(repeating: ")", count: 63)
        #expect(throws: Never.self) { try expr(deepest) }
        let tooDeep = String(repeating: "(!", count: 64) + #"(artist == "x")"# + String(repeating: ")", count: 64)
        #expect(message(tooDeep) == "Filter expression nested too deeply")
        #expect(message(String(repeating: "(", count: 5000)) == "Filter expression nested too deeply")
    }

    @Test("a NUL byte ends the expression, as in MPD's C strings")
    func nul() throws {
        #expect(message("(artist == \"x\0\")") == "Closing quote not found")
        #expect(try expr("(artist == \"x\")\0garbage") == .tag(.artist, equals("x")))
    }

    // MARK: - Old-style pairs and argument lists

    @Test("old-style pairs: exact in find, substring and folded in search")
    func oldStyle() throws {
        #expect(try args(["artist", "x"]) == .tag(.artist, equals("x")))
        #expect(
            try args(["ARTIST", "x"], foldCase: true) == .tag(.artist, StringPredicate(.contains, "x", foldCase: true)))
        #expect(try args(["any", "x"]) == .anyTag(equals("x")))
        #expect(try args(["file", "a"], foldCase: true) == .uri(StringPredicate(.contains, "a", foldCase: true)))
        #expect(try args(["filename", "a"]) == .uri(equals("a")))
        #expect(try args(["base", "a/b"]) == .base("a/b"))
        #expect(try args(["modified-since", "1700000000"]) == .modifiedSince(1_700_000_000))
        #expect(try args(["added-since", "2024-01-01"]) == .addedSince(1_704_067_200))
        #expect(try args(["artist", "(x)"]) == .tag(.artist, equals("(x)")))
    }

    @Test("old-style errors")
    func oldStyleErrors() {
        for bad in [
            ["foo", "x"], ["AudioFormat", "44100:16:2"], ["prio", "3"], ["Base", "x"], ["artist\u{212A}", "x"],
        ] {
            #expect(thrownError { try args(bad) } == MPDError(.argument, "Unknown filter type"))
        }
        for uri in ["", "/", "/a", "a/", "a//b", "./a", "../a", "a/..", "a/.", "a/../b", "a/./b"] {
            #expect(thrownError { try args(["base", uri]) } == MPDError(.argument, "Bad URI"))
        }
        #expect(thrownError { try args(["modified-since", "garbage"]) } == MPDError(.argument, "Failed to parse date"))
    }

    @Test("argument lists: one item alone, several AND-ed in order, mixed forms")
    func argumentLists() throws {
        let a = FilterExpression.tag(.artist, equals("x"))
        let b = FilterExpression.tag(.album, equals("y"))
        #expect(try args([#"(artist == "x")"#]) == a)
        #expect(try args([#"(artist == "x")"#, #"(album == "y")"#]) == .and([a, b]))
        #expect(try args([#"(artist == "x")"#, "album", "y"]) == .and([a, b]))
        #expect(try args(["album", "y", #"(artist == "x")"#]) == .and([b, a]))
        #expect(try args([#"((artist == "x") AND (album == "y"))"#]) == .and([a, b]))
        #expect(try args([#"(artist == "x") "#, "album", "y"]) == .and([a, b]))
    }

    @Test("argument list errors")
    func argumentListErrors() {
        let count = MPDError(.argument, "Incorrect number of filter arguments")
        #expect(thrownError { try args([]) } == count)
        #expect(thrownError { try args(["artist"]) } == count)
        #expect(thrownError { try args([#"(artist == "x")"#, "extra"]) } == count)
        #expect(thrownError { try args(["artist", "x", "album"]) } == count)
        #expect(thrownError { try args([#" (artist == "x")"#]) } == count)
        // An error in an earlier item wins.
        #expect(thrownError { try args(["foo", "x", "artist"]) } == MPDError(.argument, "Unknown filter type"))
        #expect(thrownError { try args([#"(foo == "x")"#]) } == MPDError(.argument, "Unknown filter type: foo"))
    }

    // MARK: - Time stamps

    @Test("modified-since and added-since: ISO 8601 as MPD's relaxed parser reads it")
    func isoTimestamps() throws {
        let cases: [(String, Int64)] = [
            ("2024-01-01", 1_704_067_200),
            ("2024-01", 1_704_067_200),
            ("2023-12", 1_701_388_800),
            ("20240101", 1_704_067_200),
            ("2024-01-01T12:00:00Z", 1_704_110_400),
            ("2024-01-01T12:00Z", 1_704_110_400),
            ("2024-01-01T12", 1_704_110_400),
            ("2024-01-01T1230", 1_704_112_200),
            ("2024-01-01T12:30:61", 1_704_112_261),
            ("2024-01-01T12:00:00+01:00", 1_704_106_800),
            ("2024-01-01T12:00:00+0100", 1_704_106_800),
            ("2024-01-01+01", 1_704_063_600),
            ("2024-01-01+01:30", 1_704_061_800),
            ("2024-01-01-01", 1_704_070_800),
            ("2024-01-01+1300", 1_704_020_400),
            ("2024-1-5T9", 1_704_445_200),
            ("2024-02-31", 1_709_337_600),
            (" 2024-01-01", 1_704_067_200),
            ("1970-01-01", 0),
            ("9999-12-31", 253_402_214_400),
        ]
        for (text, time) in cases {
            #expect(try expr("(modified-since '\(text)')") == .modifiedSince(time), "\(text)")
            #expect(try expr("(added-since \"\(text)\")") == .addedSince(time), "\(text)")
        }
    }

    @Test("time stamps: integral UNIX times, including strtoull's wrap-around")
    func unixTimestamps() throws {
        #expect(try expr("(modified-since '1700000000')") == .modifiedSince(1_700_000_000))
        #expect(try expr("(modified-since '0')") == .modifiedSince(0))
        #expect(try expr("(modified-since ' +5')") == .modifiedSince(5))
        #expect(try expr("(modified-since '-5')") == .modifiedSince(-5))
        #expect(try expr("(modified-since '18446744073709551615')") == .modifiedSince(-1))
        #expect(try args(["modified-since", "1234567890"]) == .modifiedSince(1_234_567_890))
    }

    @Test("time stamp errors are ISO 8601's")
    func timestampErrors() {
        let cases: [(String, String)] = [
            ("", "Failed to parse date"),
            ("garbage", "Failed to parse date"),
            ("1e5", "Failed to parse date"),
            ("2024-13", "Failed to parse date"),
            ("2024-01-01T", "Failed to parse time of day"),
            ("2024-01-01T25", "Failed to parse time of day"),
            ("2024-01-01T12:", "Failed to parse time of day"),
            ("2024-01-01T12:30:", "Failed to parse time of day"),
            ("2024-01-01T12:30:62", "Failed to parse time of day"),
            ("2024-01-01T12:60", "Garbage at end of time stamp"),
            ("2024-01-01X", "Garbage at end of time stamp"),
            ("2024-01-01Z ", "Garbage at end of time stamp"),
            ("2024-01-01+1:00", "Failed to parse time zone offset"),
            ("2024-01-01+", "Failed to parse time zone offset"),
            ("2024-01-01+01:3", "Failed to parse time zone offset"),
            ("2024-01-01+25", "Time offset hours out of range"),
            ("2024-01-01+1400", "Time offset hours out of range"),
            ("2024-01-01+0160", "Time offset minutes out of range"),
        ]
        for (text, expected) in cases {
            #expect(message("(modified-since '\(text)')") == expected, "\(text)")
        }
        // The closing parenthesis is checked before the time.
        #expect(message("(modified-since 'garbage' x)") == "')' expected")
    }

    // MARK: - Audio formats

    private func format(_ text: String, mask: Bool = false) throws -> FilterExpression {
        try expr("(AudioFormat \(mask ? "=~" : "==") \"\(text)\")")
    }

    @Test("AudioFormat == and =~ operands")
    func audioFormats() throws {
        func pattern(_ rate: UInt32?, _ bits: String?, _ channels: UInt8?, mask: Bool = false) -> FilterExpression {
            .audioFormat(AudioFormatPattern(sampleRate: rate, bits: bits, channels: channels, isMask: mask))
        }
        #expect(try format("44100:16:2") == pattern(44100, "16", 2))
        #expect(try format("48000:24:8") == pattern(48000, "24", 8))
        #expect(try format("44100:24_3:2") == pattern(44100, "24", 2))
        #expect(try format("96000:32:1") == pattern(96000, "32", 1))
        #expect(try format("8000:8:1") == pattern(8000, "8", 1))
        #expect(try format("44100:f:2") == pattern(44100, "f", 2))
        #expect(try format("2822400:dsd:2") == pattern(2_822_400, "dsd", 2))
        // DSD rates count bytes per channel: DSD64 is 64 × 44100 bits, 352800 bytes a second.
        #expect(try format("dsd64:2") == pattern(352_800, "dsd", 2))
        #expect(try format("dsd512:6") == pattern(2_822_400, "dsd", 6))
        #expect(try format(" 44100: +16: 2") == pattern(44100, "16", 2))
        #expect(try format("1073741823:16:2") == pattern(1_073_741_823, "16", 2))
        // MPD checks the values narrowed to 32 bits.
        #expect(try format("4294967297:16:2") == pattern(1, "16", 2))
        #expect(try format("44100:16:4294967297") == pattern(44100, "16", 1))
        #expect(try format("*:*:*", mask: true) == pattern(nil, nil, nil, mask: true))
        #expect(try format("44100:*:2", mask: true) == pattern(44100, nil, 2, mask: true))
        #expect(try format("dsd64:*", mask: true) == pattern(352_800, "dsd", nil, mask: true))
        #expect(try format("44100:16:2", mask: true) == pattern(44100, "16", 2, mask: true))
        #expect(try expr(#"(AudioFormat=="44100:16:2" )"#) == pattern(44100, "16", 2))
    }

    @Test("AudioFormat errors")
    func audioFormatErrors() {
        let cases: [(String, Bool, String)] = [
            ("", false, "Failed to parse the sample rate"),
            ("*:16:2", false, "Failed to parse the sample rate"),
            ("dsd63:2", true, "Failed to parse the sample rate"),
            ("0:16:2", false, "Invalid sample rate: 0"),
            ("1073741824:16:2", false, "Invalid sample rate: 1073741824"),
            ("-1:16:2", false, "Invalid sample rate: 18446744073709551615"),
            ("44100", false, "Sample format missing"),
            ("**:*:2", true, "Sample format missing"),
            ("44100:16", false, "Channel count missing"),
            ("44100:foo:2", false, "Channel count missing"),
            ("44100:24_3x:2", false, "Channel count missing"),
            ("44100:x:2", false, "Failed to parse the sample format"),
            ("44100:17:2", false, "Invalid sample format: 17"),
            ("44100:4294967312:2", false, "Invalid sample format: 4294967312"),
            ("44100:16:x", false, "Failed to parse the channel count"),
            ("dsd64:*", false, "Failed to parse the channel count"),
            ("44100:16:0", false, "Invalid channel count: 0"),
            ("44100:16:9", false, "Invalid channel count: 9"),
            ("44100:16:-1", false, "Invalid channel count: 4294967295"),
            ("44100:16:2x", false, "Extra data after channel count: x"),
            ("dsd64:2:", false, "Extra data after channel count: :"),
        ]
        for (text, mask, expected) in cases {
            #expect(thrownError { try format(text, mask: mask) } == MPDError(.argument, expected), "\(text)")
        }
        #expect(message(#"(AudioFormat != "44100:16:2")"#) == "'==' or '=~' expected")
        #expect(message(#"(AudioFormat contains "44100:16:2")"#) == "'==' or '=~' expected")
        // The format is checked before the closing parenthesis.
        #expect(message(#"(AudioFormat == "0:16:2" x)"#) == "Invalid sample rate: 0")
        #expect(message(#"(AudioFormat == "44100:16:2" x)"#) == "')' expected")
    }
}
