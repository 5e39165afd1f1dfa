import Playback
import Testing
import Zeroconf

/// The C bindings build, link and answer: FFmpeg, ALSA and Avahi.
@Suite("System libraries")
struct SystemLibraryTests {
    @Test("FFmpeg's catalog names the common audio formats, sorted and unique")
    func decoderCatalog() {
        let catalog = DecoderCatalog.ffmpeg()
        #expect(catalog.plugin == "ffmpeg")
        for suffix in ["flac", "mp3", "ogg", "opus", "wav", "m4a"] {
            #expect(catalog.suffixes.contains(suffix), "missing \(suffix)")
        }
        #expect(catalog.suffixes == Array(Set(catalog.suffixes)).sorted())
        #expect(catalog.mimeTypes.contains("audio/flac") || catalog.mimeTypes.contains("audio/x-flac"))
    }

    @Test("library versions are readable")
    func versions() {
        #expect(FFmpegLibrary.formatVersion.split(separator: ".").count == 3)
        #expect(ALSALibrary.version.first?.isNumber == true)
    }

    @Test("zeroconf names expand %h and are checked by Avahi")
    func serviceName() {
        #expect(ZeroconfServiceName(template: "Tonearm @ %h", hostName: "den")?.value == "Tonearm @ den")
        #expect(ZeroconfServiceName(template: "plain", hostName: "den")?.value == "plain")
        #expect(ZeroconfServiceName(template: String(repeating: "x", count: 64), hostName: "") == nil)
        #expect(ZeroconfServiceName(template: "", hostName: "") == nil)
    }
}
