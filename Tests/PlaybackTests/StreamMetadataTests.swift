import MusicModel
import Testing

@testable import Playback

/// What a stream says about itself, read as MPD reads ICY metadata, and which URLs count as
/// streams.
@Suite struct StreamMetadataTests {
    @Test func theTitleRunsToTheQuoteThatEndsIt() {
        #expect(StreamMetadata.streamTitle(in: "StreamTitle='Hello World';StreamUrl='';") == "Hello World")
        // Quotes and semicolons inside the title stay: only `';` ends it.
        #expect(StreamMetadata.streamTitle(in: "StreamTitle='Rock 'n' Roll; Live';") == "Rock 'n' Roll; Live")
        // FFmpeg keeps the block's zero padding out, but a block cut short still gives its text.
        #expect(StreamMetadata.streamTitle(in: "StreamTitle='Cut short") == "Cut short")
        #expect(StreamMetadata.streamTitle(in: "StreamTitle='';") == nil)
        #expect(StreamMetadata.streamTitle(in: "StreamUrl='http://x';") == nil)
    }

    @Test func theStationNameComesFromIcyName() {
        let headers = "icy-br: 128\nicy-name: Test FM\nicy-genre: Various\n"
        #expect(StreamMetadata.stationName(headers) == "Test FM")
        #expect(StreamMetadata.stationName("ICY-NAME:  Loud  \n") == "Loud")
        #expect(StreamMetadata.stationName("icy-genre: Jazz\n") == nil)
        #expect(StreamMetadata.stationName("icy-name:\n") == nil)
    }

    @Test func onlyURLsOfPlayedSchemesAreStreams() {
        #expect(RemoteStream.isSupported("http://127.0.0.1/live"))
        #expect(RemoteStream.isSupported("HTTPS://127.0.0.1/live"))
        #expect(!RemoteStream.isSupported("http://"))
        #expect(!RemoteStream.isSupported("ftp://127.0.0.1/a.mp3"))
        #expect(!RemoteStream.isSupported("Album/http:/x.flac"))
        #expect(RemoteStream.hasScheme("foo://bar") && !RemoteStream.hasScheme("a:/b") && !RemoteStream.hasScheme("x"))
        #expect(Song(streamURL: "http://127.0.0.1/live").isStream)
        #expect(!Song(streamURL: "file:///music/a.flac").isStream)
        #expect(!Song(uri: "a/b.flac", lastModified: 1, added: 1, audioFormat: nil, duration: nil, tags: []).isStream)
    }
}
