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
