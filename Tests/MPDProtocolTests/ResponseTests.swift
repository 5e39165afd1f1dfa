import MPDProtocol
import MusicModel
import NIOCore
import Testing

@Suite("Responses, ACK lines, names")
struct ResponseTests {
    @Test("ACK lines have MPD's layout")
    func ackLine() {
        #expect(
            AckLine.format(MPDError(.argument, "Bad song index"), index: 1, command: "play")
                == "ACK [2@1] {play} Bad song index\n")
        #expect(
            AckLine.format(MPDError(.unknown, "unknown command \"foo\""), index: 0, command: "")
                == "ACK [5@0] {} unknown command \"foo\"\n")
    }

    @Test("messages are folded into one line")
    func sanitizedMessages() {
        #expect(MPDError(.system, "read failed:\n\tNo such file").message == "read failed: No such file")
        #expect(MPDError(.argument, "Integer expected: ").message == "Integer expected: ")
        #expect(MPDError(.system, "plain").message == "plain")
    }

    @Test("names are quoted the way MPD's {:?} prints them")
    func quotedNames() {
        #expect("play".mpdQuoted == "\"play\"")
        #expect("a\"b\\c".mpdQuoted == #""a\"b\\c""#)
        // {fmt}'s escapes: short ones for three controls, \x/\u/\U with lower-case hex for
        // what is not printable; the single quote and printable non-ASCII stay as they are.
        #expect("l\n\r\t".mpdQuoted == #""l\n\r\t""#)
        #expect("\u{1}\u{7f}\u{9f}".mpdQuoted == #""\x01\x7f\x9f""#)
        #expect("a\u{a0}b\u{200b}\u{2028}".mpdQuoted == #""a\xa0b\u200b\u2028""#)
        #expect("\u{f0000}".mpdQuoted == #""\U000f0000""#)
        #expect("it's Björk ♪ 日本".mpdQuoted == "\"it's Björk ♪ 日本\"")
    }

    @Test("key-value lines, line breaks in values, binary chunks")
    func responseBuffer() {
        var response = ResponseBuffer()
        response.append("file", "a/b.flac")
        response.append("Title", "two\nlines")
        response.append("Time", 42)
        response.appendBinary([0x00, 0x0A, 0xFF])
        response.appendRaw("OK\n")
        let expected: [UInt8] =
            Array("file: a/b.flac\nTitle: two lines\nTime: 42\nbinary: 3\n".utf8)
            + [0x00, 0x0A, 0xFF, 0x0A] + Array("OK\n".utf8)
        #expect(Array(response.bytes.readableBytesView) == expected)
        let taken = response.take()
        #expect(taken.readableBytes == expected.count)
        #expect(response.count == 0)
    }

    @Test("integers as String(describing:) prints them, from zero to the extremes of each width")
    func integers() {
        var response = ResponseBuffer()
        var expected = ""
        func check<T: BinaryInteger>(_ value: T) {
            response.append("n", value)
            expected += "n: \(value)\n"
        }
        for value in [0, 7, 9, 10, 42, 99, 100, 12_345, -1, -10, -987_654_321] { check(value) }
        check(Int64.max)
        check(Int64.min)
        check(UInt64.max)  // beyond Int64: the String path
        check(UInt8(255))
        check(Int32.min)
        #expect(String(decoding: response.bytes.readableBytesView, as: UTF8.self) == expected)
    }

    @Test("lines with carriage returns, empty and non-ASCII values, beyond the first capacity")
    func responseBufferLines() {
        var response = ResponseBuffer()
        response.append("Comment", "a\r\nb\rc\n")
        response.append("Artist", "")
        response.append("Album", "音楽図鑑")
        let long = String(repeating: "x", count: 5000)
        response.append("Title", long)
        let expected = "Comment: a  b c \nArtist: \nAlbum: 音楽図鑑\nTitle: \(long)\n"
        #expect(Array(response.bytes.readableBytesView) == Array(expected.utf8))
    }

    @Test("idle subsystem names, case-insensitive, in bit order")
    func idleSubsystems() {
        #expect(IdleSubsystems(name: "PLAYER") == .player)
        #expect(IdleSubsystems(name: "stored_playlist") == .storedPlaylist)
        #expect(IdleSubsystems(name: "foo") == nil)
        #expect(([.partition, .database, .mixer] as IdleSubsystems).memberNames == ["database", "mixer", "partition"])
        #expect(IdleSubsystems.all.memberNames.count == 14)
    }

    @Test("tag names and masks")
    func tags() {
        #expect(TagType(name: "albumartist") == .albumArtist)
        #expect(TagType(name: "musicbrainz_trackid") == .musicBrainzTrackID)
        #expect(TagType(name: "nope") == nil)
        #expect(TagType.allCases.count == 35)
        #expect(!TagMask.defaultMetadata.contains(.comment))
        #expect(TagMask.defaultMetadata.tags.count == 34)
        let mask = TagMask([.title, .artist])
        #expect(mask.tags == [.artist, .title])
        #expect(mask.union(TagMask([.album])).tags == [.artist, .album, .title])
        #expect(mask.subtracting(TagMask([.artist])).tags == [.title])
        #expect(TagMask.all.intersection(mask) == mask)
    }

    @Test("protocol features")
    func features() {
        #expect(ProtocolFeature(name: "HIDE_playlists_in_root") == .hidePlaylistsInRoot)
        #expect(ProtocolFeature(name: "binary") == nil)
    }
}
