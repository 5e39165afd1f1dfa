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
        #expect(RemoteStream.lowercasingScheme("HTTPS://Host/Path") == "https://Host/Path")
        #expect(RemoteStream.lowercasingScheme("http://Host/A") == "http://Host/A")
        #expect(Song(streamURL: "http://127.0.0.1/live").isStream)
        #expect(!Song(streamURL: "file:///music/a.flac").isStream)
        #expect(!Song(uri: "a/b.flac", lastModified: 1, added: 1, audioFormat: nil, duration: nil, tags: []).isStream)
    }
}

/// The interrupt FFmpeg's blocking calls ask: a control raises it, and a watched call that
/// waits too long gives up as having timed out.
@Suite struct DecoderInterruptTests {
    @Test func aControlAfterTheStepRaisesIt() {
        let epoch = InterruptEpoch()
        let interrupt = DecoderInterrupt(epoch, since: epoch.current)
        #expect(!interrupt.isRaised)
        epoch.advance()
        #expect(interrupt.isRaised && !interrupt.hasTimedOut)
        // One made for a step taken before the control is raised from the start.
        #expect(DecoderInterrupt(epoch, since: epoch.current &- 1).isRaised)
    }

    @Test func aWatchedCallGivesUpAfterItsTime() async throws {
        let interrupt = DecoderInterrupt()
        interrupt.watch(0.05)
        #expect(!interrupt.isRaised)
        try await Task.sleep(for: .milliseconds(100))
        #expect(interrupt.isRaised && interrupt.hasTimedOut)
        let unwatched = DecoderInterrupt()
        unwatched.watch(0.05)
        unwatched.unwatch()
        try await Task.sleep(for: .milliseconds(100))
        #expect(!unwatched.isRaised && !unwatched.hasTimedOut)
    }
}
