import Testing

@testable import Server

@Suite("Song printer")
struct SongPrinterTests {
    @Test("timestamps match gmtime_r: epoch, leap days, century rules, before 1970, far years")
    func timestamps() {
        var samples: [Int64] = [0, 1, 59, 86_399, 86_400, 951_782_400, 951_868_799, 4_107_542_400, 1_700_000_000,
                                -1, -86_400, -86_401, -2_208_988_800, -30_610_224_000, 253_402_300_799, 253_402_300_800,
                                -62_167_219_200, Int64(Int32.max)]
        // Every day of some years around leap rules, at varied times of day.
        samples += stride(from: Int64(-2_300_000_000), to: 4_200_000_000, by: 86_400 * 7 + 3_607)
        for seconds in samples {
            #expect(SongPrinter.timestamp(seconds) == SongPrinter.slowTimestamp(seconds), "\(seconds)")
        }
        #expect(SongPrinter.timestamp(951_782_400) == "2000-02-29T00:00:00Z")
        #expect(SongPrinter.timestamp(-1) == "1969-12-31T23:59:59Z")
    }
}
