import Testing

@testable import Playback

@Suite struct PCMFormatTests {
    @Test func mpdNotation() {
        #expect(PCMFormat.cd.description == "44100:16:2")
        #expect(PCMFormat(mpdFormat: "48000:f:2") == PCMFormat(sampleRate: 48000, sample: .float, channels: 2))
        #expect(PCMFormat(mpdFormat: "96000:24:6")?.frameSize == 24)
        #expect(
            PCMFormat(mpdFormat: "*:16:*", source: PCMFormat(sampleRate: 22050, sample: .float, channels: 1))
                == PCMFormat(sampleRate: 22050, sample: .s16, channels: 1))
        for bad in ["44100:16", "44100:12:2", "0:16:2", "44100:16:9", "x:16:2", "*:16:2"] {
            #expect(PCMFormat(mpdFormat: bad) == nil, "\(bad)")
        }
    }
}

/// What the outputs open in while the decoder opens a file (``PCMFormat/init(expectedFrom:path:)``):
/// FFmpeg's decoded format, from MPD's name in the database and the suffix, or nothing.
@Suite struct ExpectedFormatTests {
    func expected(_ stored: String, _ path: String) -> String? {
        PCMFormat(expectedFrom: stored, path: path)?.description
    }

    @Test func namesThatTellTheDecodedFormat() {
        #expect(expected("44100:16:2", "/m/a.flac") == "44100:16:2")
        #expect(expected("44100:8:1", "/m/a.flac") == "44100:16:1")
        #expect(expected("96000:24:2", "/m/a.FLAC") == "96000:24:2")
        #expect(expected("192000:32:2", "/m/a.wv") == "192000:32:2")
        #expect(expected("44100:f:2", "/m/a.ogg") == "44100:f:2")
        #expect(expected("44100:16:2", "/m/a.wav") == "44100:16:2")
        // MPD's libmad and libopus give 24 and 16 bits; FFmpeg's decoders give float.
        #expect(expected("44100:24:2", "/m/a.mp3") == "44100:f:2")
        #expect(expected("48000:16:2", "/m/a.opus") == "48000:f:2")
    }

    @Test func nothingWhereTheNameLeavesADoubt() {
        #expect(expected("44100:32:2", "/m/a.wav") == nil)  // 24-bit PCM is named 32 too
        #expect(expected("48000:16:2", "/m/a.ogg") == nil)  // Opus or FLAC in Ogg
        #expect(expected("44100:24:2", "/m/a.mka") == nil)  // MP3 or FLAC in Matroska
        #expect(expected("dsd64:2", "/m/a.dsf") == nil)
        #expect(expected("44100:16:2", "/m/no suffix") == nil)
        #expect(expected("44100:16:2", "/m/dir.d/no suffix") == nil)
        #expect(expected("0:16:2", "/m/a.flac") == nil)
        #expect(expected("44100:16", "/m/a.flac") == nil)
    }
}
