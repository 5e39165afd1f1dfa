import MediaLibrary
import MusicModel
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
        #expect(expected("44100:16:2", "/m/a.m4a") == "44100:16:2")  // not Opus, which is 48 kHz
        #expect(expected("44100:16:2", "/m/a.wav") == "44100:16:2")
        // MPD's libmad and libopus give 24 and 16 bits; FFmpeg's decoders give float.
        #expect(expected("44100:24:2", "/m/a.mp3") == "44100:f:2")
        #expect(expected("48000:16:2", "/m/a.opus") == "48000:f:2")
    }

    @Test func nothingWhereTheNameLeavesADoubt() {
        #expect(expected("44100:32:2", "/m/a.wav") == nil)  // named 32 for 24 or 32 bits, and no file to read
        #expect(expected("48000:16:2", "/m/a.ogg") == nil)  // Opus or FLAC in Ogg
        #expect(expected("48000:16:2", "/m/a.m4a") == nil)  // Opus or ALAC in MP4
        #expect(expected("44100:24:2", "/m/a.mka") == nil)  // MP3 or FLAC in Matroska
        #expect(expected("dsd64:2", "/m/a.dsf") == nil)
        #expect(expected("44100:16:2", "/m/no suffix") == nil)
        #expect(expected("44100:16:2", "/m/dir.d/no suffix") == nil)
        #expect(expected("0:16:2", "/m/a.flac") == nil)
        #expect(expected("44100:16", "/m/a.flac") == nil)
    }
}

/// The guess against the truth: for files made with the `ffmpeg` CLI, the format named from the
/// database entry the scanner writes is the one the decoder then gives, or no guess is made.
@Suite struct ExpectedFormatOfRealFilesTests {
    @Test func theGuessIsWhatTheDecoderGives() throws {
        let fixtures = try AudioFixtures()
        let source = try fixtures.chirp("source.wav", rate: 44100, seconds: 0.5)
        let files: [(String, [String])] = [
            ("16.flac", ["-c:a", "flac"]),
            ("24.flac", ["-c:a", "flac", "-sample_fmt", "s32", "-bits_per_raw_sample", "24"]),
            ("16.wav", ["-c:a", "pcm_s16le"]),
            ("24.wav", ["-c:a", "pcm_s24le"]),
            ("32.wav", ["-c:a", "pcm_s32le"]),
            ("float.wav", ["-c:a", "pcm_f32le"]),
            ("a.mp3", ["-c:a", "libmp3lame", "-b:a", "128k"]),
            ("a.opus", ["-c:a", "libopus", "-b:a", "96k"]),
            ("a.ogg", ["-c:a", "libvorbis"]),
            ("a.m4a", ["-c:a", "aac", "-b:a", "128k"]),
            ("alac.m4a", ["-c:a", "alac"]),
            ("flac.ogg", ["-c:a", "flac"]),
            ("opus.mp4", ["-c:a", "libopus", "-b:a", "96k"]),
        ]
        let unguessed: Set = ["opus.mp4"]  // named 48000:16 like 16-bit ALAC at 48 kHz
        var guessed: Set<String> = []
        for (name, options) in files {
            let path = try fixtures.encode(source, name, options)
            let metadata = try MetadataReader.read(path: path, tags: TagMask(bits: 0))
            let stored = try #require(metadata.audioFormat, "\(name)")
            let decoded = try AudioDecoder(path: path).sourceFormat
            if let guess = PCMFormat(expectedFrom: stored, path: path) {
                #expect(guess == decoded, "\(name): named \(stored), guessed \(guess), decoded \(decoded)")
                guessed.insert(name)
            }
        }
        #expect(guessed == Set(files.map(\.0)).subtracting(unguessed))
    }
}
