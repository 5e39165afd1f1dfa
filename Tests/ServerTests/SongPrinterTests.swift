import MPDProtocol
import MediaLibrary
import MusicModel
import NIOCore
import Testing

@testable import Server

@Suite("Song printer")
struct SongPrinterTests {
    @Test("timestamps match gmtime_r: epoch, leap days, century rules, before 1970, far years")
    func timestamps() {
        var samples: [Int64] = [
            0, 1, 59, 86_399, 86_400, 951_782_400, 951_868_799, 4_107_542_400, 1_700_000_000,
            -1, -86_400, -86_401, -2_208_988_800, -30_610_224_000, 253_402_300_799, 253_402_300_800,
            -62_167_219_200, Int64(Int32.max),
        ]
        // Every day of some years around leap rules, at varied times of day.
        samples += stride(from: Int64(-2_300_000_000), to: 4_200_000_000, by: 86_400 * 7 + 3_607)
        for seconds in samples {
            #expect(SongPrinter.timestamp(seconds) == SongPrinter.slowTimestamp(seconds), "\(seconds)")
        }
        #expect(SongPrinter.timestamp(951_782_400) == "2000-02-29T00:00:00Z")
        #expect(SongPrinter.timestamp(-1) == "1969-12-31T23:59:59Z")
    }

    @Test("a song block's Time and duration, as threeDecimals formats them, and its timestamps")
    func durations() {
        for duration in [0, 0.0005, 0.001, 0.999, 1, 1.0715, 59.9999, 123.4, 3_599.5, 86_400.25, 1e9 + 0.5] {
            let song = Song(
                uri: "a.mp3", lastModified: 1_600_000_000, added: -1, audioFormat: nil, duration: duration, tags: [])
            var response = ResponseBuffer()
            SongPrinter.write(song, tags: .all, to: &response)
            let milliseconds = Int64((duration * 1000).rounded(.down))
            let expected =
                "file: a.mp3\nLast-Modified: 2020-09-13T12:26:40Z\nAdded: 1969-12-31T23:59:59Z\n"
                + "Time: \((milliseconds + 500) / 1000)\nduration: \(SongPrinter.threeDecimals(duration))\n"
            #expect(String(decoding: response.bytes.readableBytesView, as: UTF8.self) == expected, "\(duration)")
        }
    }
}
