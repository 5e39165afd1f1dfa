import MPDProtocol
import MusicModel
import Testing

/// `mpdExpression`: the normalised text MPD's `ToExpression()` gives a filter, under which
/// filter stickers are stored.
@Suite("Filter expression text")
struct FilterExpressionTextTests {
    private func normalised(_ text: String) throws -> String {
        try FilterExpression.parse([text], foldCase: false).optimized.mpdExpression
    }

    @Test("comparisons print with double quotes and MPD's operator names")
    func comparisons() throws {
        #expect(try normalised("(artist == 'Björk')") == #"(Artist == "Björk")"#)
        #expect(try normalised("(ARTIST != \"x\")") == #"(Artist != "x")"#)
        #expect(try normalised("(album contains 'a')") == #"(Album contains_cs "a")"#)
        #expect(try normalised("(album contains_ci 'a')") == #"(Album contains_ci "a")"#)
        #expect(try normalised("(title starts_with 'T')") == #"(Title starts_with_cs "T")"#)
        #expect(try normalised("(title eq_ci 'T')") == #"(Title eq_ci "T")"#)
        #expect(try normalised("(any == 'x')") == #"(any == "x")"#)
        #expect(try normalised("(file == 'a/b.flac')") == #"(file == "a/b.flac")"#)
        #expect(try normalised("(title =~ '^a.*')") == #"(Title =~ "^a.*")"#)
    }

    @Test("quotes and backslashes in values are escaped")
    func escaping() throws {
        #expect(try normalised(#"(artist == "it's \"x\" \\ y")"#) == #"(Artist == "it\'s \"x\" \\ y")"#)
    }

    @Test("base, times, audio format and priority")
    func otherFilters() throws {
        #expect(try normalised("(base 'Björk/Debut')") == #"(base "Björk/Debut")"#)
        #expect(
            try normalised("(modified-since '2024-01-31T12:00:00Z')") == #"(modified-since "2024-01-31T12:00:00Z")"#)
        #expect(try normalised("(modified-since '1600000000')") == #"(modified-since "2020-09-13T12:26:40Z")"#)
        #expect(try normalised("(added-since '2024-01')") == #"(added-since "2024-01-01T00:00:00Z")"#)
        #expect(try normalised("(AudioFormat == '44100:16:2')") == #"(AudioFormat == "44100:16:2")"#)
        #expect(try normalised("(AudioFormat =~ '44100:*:2')") == #"(AudioFormat =~ "44100:*:2")"#)
        #expect(try normalised("(prio >= 5)") == "(prio >= 5)")
    }

    @Test("optimising merges nested ANDs and folds NOT into comparisons, as MPD does")
    func optimising() throws {
        #expect(
            try normalised("((artist == 'a') AND ((album == 'b') AND (title == 'c')))")
                == #"((Artist == "a") AND (Album == "b") AND (Title == "c"))"#)
        #expect(try normalised("(!(artist == 'a'))") == #"(Artist != "a")"#)
        #expect(try normalised("(!(artist != 'a'))") == #"(Artist == "a")"#)
        #expect(try normalised("(!(file contains 'x'))") == #"(file !contains_cs "x")"#)
        #expect(try normalised("(!(base 'x'))") == #"(!(base "x"))"#)
        #expect(try normalised("(!(!(base 'x')))") == #"(!(!(base "x")))"#)
        let pair = try FilterExpression.parse(["artist", "x", "(album == 'y')"], foldCase: false)
        #expect(pair.optimized.mpdExpression == #"((Artist == "x") AND (Album == "y"))"#)
    }
}
