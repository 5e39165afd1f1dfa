import Testing

@testable import Playback

/// Software volume against MPD's own output. The expected samples were recorded from Debian's
/// `mpd` 0.23.12 playing these samples (the first thirteen of a WAV or FLAC file) to a `pipe`
/// output (`cat > file`) with `mixer_type "software"` at `volume 50`, on a freshly opened
/// output, so with fresh dither state. The 16-bit in-place case, which MPD 0.23 never takes,
/// follows the same arithmetic at 16 bits (worked out by hand from MPD's `PcmDither`).
@Suite struct SoftwareVolumeTests {
    static let s16: [Int16] = [0, 1, -1, 2, -2, 511, -512, 32767, -32768, 1000, -1000, 12345, -12345]
    static let s24: [Int32] = [
        0, 1, -1, 2, -2, 8_388_607, -8_388_608, 100_000, -100_000, 4_194_304, -4_194_304, 1_234_567, -1_234_567,
    ]
    static let s32: [Int32] = [
        0, 1, -1, 2, -2, .max, .min, 100_000, -100_000, 1 << 30, -(1 << 30), 123_456_789, -123_456_789,
    ]
    static let float: [Float] = [0, 1, -1, 0.5, -0.5, 0.25, 0.123456, -0.987654, 1e-6, -1e-6, 0.75, -0.75, 0.1]

    /// Applies `volume` percent to `samples` with a fresh volume stage.
    static func scaled<T>(_ samples: [T], _ volume: Int, _ sample: PCMFormat.Sample) -> [T] {
        var buffer = samples
        var stage = SoftwareVolume()
        buffer.withUnsafeMutableBytes {
            stage.apply(volume, to: $0, format: PCMFormat(sampleRate: 44100, sample: sample, channels: 1))
        }
        return buffer
    }

    /// Every percent, against MPD's expression compiled in C with glibc's `expf`.
    @Test func percentMapsToMPDsFactors() {
        let mpd = [
            0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 16, 17, 19, 20, 22,
            23, 25, 27, 29, 31, 33, 35, 37, 39, 42, 44, 47, 50, 52, 55, 58, 62, 65, 68, 72,
            76, 79, 83, 88, 92, 96, 101, 106, 111, 117, 122, 128, 134, 140, 147, 153, 160, 168, 175, 183,
            191, 200, 209, 218, 228, 238, 249, 260, 271, 283, 295, 308, 321, 335, 350, 365, 380, 397, 414, 431,
            450, 469, 489, 509, 531, 553, 577, 601, 626, 653, 680, 709, 738, 769, 801, 835, 870, 906, 944, 983,
            1024,
        ]
        #expect((0...100).map { SoftwareVolume.factor(percent: $0) } == mpd)
        #expect(SoftwareVolume.factor(percent: 150) == 1024)
        #expect(SoftwareVolume.factor(percent: -3) == 0)
    }

    @Test func s24AtHalfVolumeIsMPDs() {
        #expect(
            Self.scaled(Self.s24, 50, .s24) == [
                1, -1, 1, -1, 0, 999_424, -999_425, 11916, -11916, 499_713, -499_712, 147_086, -147_086,
            ])
    }

    @Test func s32AtHalfVolumeIsMPDs() {
        #expect(
            Self.scaled(Self.s32, 50, .s32) == [
                1, -1, 1, -1, 0, 255_852_544, -255_852_545, 11916, -11916, 127_926_273, -127_926_272, 14_708_718,
                -14_708_718,
            ])
    }

    @Test func floatAtHalfVolumeIsMPDs() {
        let expected: [Float] = [
            0, 0.119140625, -0.119140625, 0.0595703125, -0.0595703125, 0.02978515625, 0.0147086251527071,
            -0.11766970902681351, 1.191406227007974e-07, -1.191406227007974e-07, 0.08935546875, -0.08935546875,
            0.011914062313735485,
        ]
        #expect(Self.scaled(Self.float, 50, .float) == expected)
    }

    @Test func s16WidenedTo24BitsIsWhatMPDEmits() {
        var wide = [Int32](repeating: 0, count: Self.s16.count)
        let written = Self.s16.withUnsafeBytes { source in
            wide.withUnsafeMutableBytes { SoftwareVolume.widen16To24(source, into: $0) }
        }
        #expect(written == Self.s16.count * 4)
        #expect(wide == Self.s16.map { Int32($0) << 8 })
        #expect(
            Self.scaled(wide, 50, .s24) == [
                1, 29, -29, 60, -61, 15586, -15617, 999_395, -999_425, 30500, -30500, 376_522, -376_522,
            ])
    }

    @Test func s16InPlaceUsesMPDs16BitArithmetic() {
        #expect(Self.scaled(Self.s16, 50, .s16) == [1, -1, 1, -1, 0, 61, -62, 3906, -3906, 121, -120, 1470, -1470])
    }

    @Test func ditherRunsOnAcrossBuffersAndResets() {
        var stage = SoftwareVolume()
        var first = Self.s24
        var second = Self.s24
        let format = PCMFormat(sampleRate: 44100, sample: .s24, channels: 1)
        first.withUnsafeMutableBytes { stage.apply(50, to: $0, format: format) }
        second.withUnsafeMutableBytes { stage.apply(50, to: $0, format: format) }
        #expect(first != second, "the second buffer continues the dither sequence")
        stage.reset()
        var third = Self.s24
        third.withUnsafeMutableBytes { stage.apply(50, to: $0, format: format) }
        #expect(third == first)
    }

    @Test func zeroIsSilenceAndHundredIsUntouched() {
        #expect(Self.scaled(Self.s16, 0, .s16) == Array(repeating: 0, count: Self.s16.count))
        #expect(Self.scaled(Self.s24, 0, .s24) == Array(repeating: 0, count: Self.s24.count))
        #expect(Self.scaled(Self.s32, 0, .s32) == Array(repeating: 0, count: Self.s32.count))
        #expect(Self.scaled(Self.float, 0, .float) == Array(repeating: 0, count: Self.float.count))
        #expect(Self.scaled(Self.s16, 100, .s16) == Self.s16)
        #expect(Self.scaled(Self.s24, 100, .s24) == Self.s24)
        #expect(Self.scaled(Self.s32, 100, .s32) == Self.s32)
        #expect(Self.scaled(Self.float, 100, .float) == Self.float)
    }

    @Test func fullScaleClipsInsteadOfWrapping() {
        var stage = SoftwareVolume()
        var samples: [Int16] = [.max, .min, .max, .min]
        samples.withUnsafeMutableBytes { stage.apply(factor: 2048, to: $0, sample: .s16) }
        #expect(samples == [.max, .min, .max, .min])
    }
}
