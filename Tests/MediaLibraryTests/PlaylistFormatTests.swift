import MediaLibrary
import PlaylistFormats
import Testing

/// Reading playlist files and entries as MPD's playlist plugins and
/// `playlist_check_translate_song` do (the cases Debian's MPD 0.23 was seen to answer).
struct PlaylistFormatTests {
    @Test func m3uSkipsCommentsAndBlankLinesAndStripsBlanksWhenPlaying() {
        let text = "#EXTM3U\nintro.flac\n# comment\n\n  Various/Field/wind.wav  \r\nlast.flac"
        #expect(PlaylistFormat.m3u.entries(of: text) == ["intro.flac", "Various/Field/wind.wav", "last.flac"])
        // The stored-playlist editor keeps blanks and drops only a carriage return.
        #expect(
            PlaylistFormat.m3uEntries(text, stripWhitespace: false)
                == ["intro.flac", "  Various/Field/wind.wav  ", "last.flac"])
    }

    /// Found by FuzzPlaylistFormats (Fuzz/Regressions/PlaylistFormats/comment_with_combining_mark):
    /// `#` followed by a combining mark is one Swift Character, yet MPD sees a `#` first byte.
    @Test func aCommentStaysACommentWhenACombiningMarkFollowsItsHash() {
        let text = "#\u{314}\nintro.flac\n#\u{301}EXTINF:1,x\n"
        #expect(PlaylistFormat.m3u.entries(of: text) == ["intro.flac"])
        #expect(PlaylistFormat.m3uEntries(text, stripWhitespace: false) == ["intro.flac"])
        #expect(PlaylistFormat.pls.entries(of: "[playlist]\nFile1=a.flac\n[\u{301}x]\nFile2=b.flac\n") == ["a.flac"])
    }

    @Test func m3uTextIsOneEntryALineWithoutHeader() {
        #expect(PlaylistFormat.m3uText(["a.flac", "b/c.mp3"]) == "a.flac\nb/c.mp3\n")
        #expect(PlaylistFormat.m3uText([]) == "")
    }

    @Test func plsEntriesFollowTheirNumbers() {
        let text = """
            [playlist]
            NumberOfEntries=3
            File1=intro.flac
            Title1=Hi
            File3=Various/Field/wind.wav
            file2 = missing.flac
            File4=
            [other]
            File5=outside.flac
            """
        #expect(PlaylistFormat.pls.entries(of: text) == ["intro.flac", "missing.flac", "Various/Field/wind.wav"])
        #expect(PlaylistFormat.pls.entries(of: "File1=a.flac\n") == [])
    }

    @Test func formatsBySuffix() {
        #expect(PlaylistFormat(suffixOf: "a/b.m3u") == .m3u)
        #expect(PlaylistFormat(suffixOf: "a/b.M3U8") == .m3u)
        #expect(PlaylistFormat(suffixOf: "b.pls") == .pls)
        #expect(PlaylistFormat(suffixOf: "b.xspf") == .xspf)
        #expect(PlaylistFormat(suffixOf: "b.asx") == nil)
        #expect(PlaylistFormat(suffixOf: "a.m3u/b") == nil)
        #expect(PlaylistFormat(suffixOf: "m3u") == nil)
    }

    /// A server names a playlist by its `Content-Type` (MPD's plugins list the same types).
    @Test func formatsByMIMEType() {
        #expect(PlaylistFormat(mimeType: "audio/x-mpegurl") == .m3u)
        #expect(PlaylistFormat(mimeType: "Audio/MpegURL") == .m3u)
        #expect(PlaylistFormat(mimeType: "audio/x-scpls") == .pls)
        #expect(PlaylistFormat(mimeType: "application/xspf+xml") == .xspf)
        // HLS is a stream the decoder plays, not a playlist to queue.
        #expect(PlaylistFormat(mimeType: "application/vnd.apple.mpegurl") == nil)
        #expect(PlaylistFormat(mimeType: "audio/flac") == nil)
    }

    /// The `<location>` of each track of the track list, in order, CDATA and entities read;
    /// elsewhere a location is no track, and a broken document keeps the tracks it ended before
    /// the break, as MPD's expat-based plugin adds a track at its end tag.
    @Test func xspfListsItsTracksLocations() {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <playlist version="1" xmlns="http://xspf.org/ns/0/">
              <location>http://127.0.0.1/not-a-track</location>
              <trackList>
                <track><title>One</title><location> http://127.0.0.1/a.mp3?x=1&amp;y=2 </location></track>
                <track><location><![CDATA[b/c.flac]]></location></track>
                <track><title>No location</title></track>
                <track><location>d.flac</location>
            """
        #expect(PlaylistFormat.xspf.entries(of: text) == ["http://127.0.0.1/a.mp3?x=1&y=2", "b/c.flac"])
        #expect(PlaylistFormat.xspf.entries(of: "not xml at all") == [])
    }

    /// What a playlist says of its entries, which MPD's plugins make a stream's tags: extended
    /// M3U's `#EXTINF` (only after `#EXTM3U`) a name and a length, PLS's `TitleN` and `LengthN`,
    /// XSPF's title, creator, album and duration in milliseconds. Lengths of 0 or less are none.
    @Test func entriesCarryWhatThePlaylistSaysOfThem() {
        let m3u = "#EXTM3U\n#EXTINF:-1,Radio One\nhttp://127.0.0.1/one\n#EXTINF:2,Tone\ntone.flac\nplain.flac\n"
        let described = PlaylistFormat.m3u.describedEntries(of: m3u)
        #expect(described.map(\.uri) == ["http://127.0.0.1/one", "tone.flac", "plain.flac"])
        #expect(described.map(\.name) == ["Radio One", "Tone", nil])
        #expect(described.map(\.duration) == [nil, 2, nil])
        #expect(
            PlaylistFormat.m3u.describedEntries(of: "#EXTINF:2,Tone\ntone.flac\n") == [PlaylistEntry(uri: "tone.flac")])
        let pls = "[playlist]\nFile2=b.flac\nTitle2=Bee\nLength2=3\nFile1=http://127.0.0.1/a\nTitle1=Ay\nLength1=-1\n"
        let entries = PlaylistFormat.pls.describedEntries(of: pls)
        #expect(entries.map(\.uri) == ["http://127.0.0.1/a", "b.flac"])
        #expect(entries.map(\.title) == ["Ay", "Bee"] && entries.map(\.duration) == [nil, 3])
        let xspf = """
            <playlist><trackList><track><location>x.flac</location><title>Ex</title><creator>Someone</creator>\
            <album>Record</album><duration>2500</duration></track></trackList></playlist>
            """
        var expected = PlaylistEntry(uri: "x.flac")
        (expected.title, expected.artist, expected.album, expected.duration) = ("Ex", "Someone", "Record", 2.5)
        #expect(PlaylistFormat.xspf.describedEntries(of: xspf) == [expected])
    }

    @Test func dotSegmentsAreSquashedAsMPDDoes() {
        #expect(PlaylistEntryResolver.squashDotSegments("../intro.flac") == "intro.flac")
        #expect(PlaylistEntryResolver.squashDotSegments("Various/../intro.flac") == "intro.flac")
        #expect(PlaylistEntryResolver.squashDotSegments("./a/./b") == "a/b")
        #expect(PlaylistEntryResolver.squashDotSegments("a/b/../../c") == "c")
        #expect(PlaylistEntryResolver.squashDotSegments("Various//Field/wind.wav") == "Various//Field/wind.wav")
        #expect(PlaylistEntryResolver.squashDotSegments("/music/./x") == "/music/x")
    }

    @Test func entriesAreReadRelativeToTheirPlaylist() {
        let resolver = PlaylistEntryResolver(musicDirectory: "/srv/music/")
        func resolve(_ entry: String, _ base: String = "") -> PlaylistEntryResolver.Target {
            resolver.resolve(entry, base: base)
        }
        #expect(resolve("intro.flac") == .init(uri: "intro.flac", isLibraryURI: true))
        #expect(resolve("zz.flac", "Sub") == .init(uri: "Sub/zz.flac", isLibraryURI: true))
        #expect(resolve("../intro.flac", "Sub") == .init(uri: "intro.flac", isLibraryURI: true))
        #expect(resolve("/srv/music/Björk/a.mp3", "Sub") == .init(uri: "Björk/a.mp3", isLibraryURI: true))
        #expect(resolve("file:///srv/music/a.mp3") == .init(uri: "a.mp3", isLibraryURI: true))
        #expect(resolve("/etc/passwd") == .init(uri: "/etc/passwd", isLibraryURI: false))
        #expect(resolve("file:///etc/passwd") == .init(uri: "file:///etc/passwd", isLibraryURI: false))
        #expect(
            resolve("http://example.com/s.mp3", "Sub") == .init(uri: "http://example.com/s.mp3", isLibraryURI: false))
        #expect(resolve("Various//Field/wind.wav") == .init(uri: "Various//Field/wind.wav", isLibraryURI: false))
        #expect(resolve("/srv/musicality/x.flac") == .init(uri: "/srv/musicality/x.flac", isLibraryURI: false))
    }

    @Test func folderOfAURI() {
        #expect(PlaylistEntryResolver.folder(of: "mix.m3u") == "")
        #expect(PlaylistEntryResolver.folder(of: "Various/Field/playlist.m3u") == "Various/Field")
    }
}
