import Settings
import Testing

@testable import Playback

/// Replay gain: MPD's scale for each mode and option, and the samples that scale gives.
///
/// The expected samples were recorded from Debian's `mpd` 0.23.12 playing FLAC files that
/// start with these samples (16-bit, and 24-bit, mono, followed by silence), tagged
/// `REPLAYGAIN_TRACK_GAIN=-6.00 dB` or `+6.00 dB`, with `replaygain "track"` (and
/// `replaygain_limit "no"` for +6 dB) into a `pipe` output (`cat >> file`,
/// `mixer_type "none"`) freshly opened, so with fresh dither state.
@Suite struct ReplayGainTests {
    static let s16: [Int16] = [0, 1, -1, 2, -2, 511, -512, 32767, -32768, 1000, -1000, 12345, -12345]
    static let s24: [Int32] = [
        0, 1, -1, 2, -2, 8_388_607, -8_388_608, 100_000, -100_000, 4_194_304, -4_194_304, 1_234_567, -1_234_567,
    ]

    static let track = ReplayGainSettings(mode: .track)
    static let album = ReplayGainSettings(mode: .album)

    // MARK: The scale

    @Test func trackGainBecomesMPDsFactor() {
        let info = ReplayGainInfo(trackGain: -6)
        #expect(abs(Self.track.scale(for: info)! - 0.501187) < 1e-6)
        #expect(Self.track.factor(for: info) == 513)
        // +6 dB: 10^0.3 = 1.995262 → 2043.1 → 2043.
        #expect(Self.track.factor(for: ReplayGainInfo(trackGain: 6)) == 2043)
    }

    @Test func offLeavesTheSamplesAlone() {
        let off = ReplayGainSettings(mode: .off, preamp: 10, missingPreamp: -10)
        #expect(off.scale(for: ReplayGainInfo(trackGain: -6)) == nil)
        #expect(off.factor(for: ReplayGainInfo(trackGain: -6)) == 1024)
        #expect(off.factor(for: nil) == 1024)
    }

    @Test func eachModePicksItsGainAndFallsBackToTheOther() {
        let both = ReplayGainInfo(trackGain: -6, albumGain: -12)
        #expect(Self.track.factor(for: both) == 513)
        #expect(Self.album.factor(for: both) == 257)  // 10^(-12/20) = 0.2512 → 257.2
        // A song with only one of them: both modes take that one.
        #expect(Self.album.factor(for: ReplayGainInfo(trackGain: -6)) == 513)
        #expect(Self.track.factor(for: ReplayGainInfo(albumGain: -12)) == 257)
    }

    @Test func autoIsAlbumUnlessRandomIsOn() {
        #expect(ReplayGainSettings.effectiveMode(.auto, random: false) == .album)
        #expect(ReplayGainSettings.effectiveMode(.auto, random: true) == .track)
        for mode in [ReplayGainMode.off, .track, .album] {
            #expect(ReplayGainSettings.effectiveMode(mode, random: true) == mode)
            #expect(ReplayGainSettings.effectiveMode(mode, random: false) == mode)
        }
    }

    @Test func preampAddsToTheGain() {
        let raised = ReplayGainSettings(mode: .track, preamp: 6)
        // −6 dB + 6 dB: 0.501187 × 1.995262 = 1.0000 → 1024.
        #expect(raised.factor(for: ReplayGainInfo(trackGain: -6)) == 1024)
        let lowered = ReplayGainSettings(mode: .track, preamp: -6)
        #expect(lowered.factor(for: ReplayGainInfo(trackGain: 0)) == 513)
        // The preamp is for songs with a gain only.
        #expect(raised.factor(for: nil) == 1024)
    }

    @Test func songsWithoutAGainGetTheMissingPreamp() {
        let settings = ReplayGainSettings(mode: .album, preamp: 6, missingPreamp: -3)
        // 10^(−3/20) = 0.707946 → 724.9 → 725.
        #expect(settings.factor(for: nil) == 725)
        // Peaks alone, or a gain MPD treats as undefined (≤ −100 dB), are no gain.
        #expect(settings.factor(for: ReplayGainInfo(trackPeak: 0.5, albumPeak: 0.5)) == 725)
        #expect(settings.factor(for: ReplayGainInfo(trackGain: -100)) == 725)
        #expect(ReplayGainSettings(mode: .track).factor(for: nil) == 1024)
    }

    @Test func theLimitKeepsThePeakAtFullScale() {
        let loud = ReplayGainInfo(trackGain: 6, trackPeak: 0.8)
        // 1.995 × 0.8 > 1, so the scale is 1 / 0.8 = 1.25.
        #expect(Self.track.factor(for: loud) == 1280)
        #expect(ReplayGainSettings(mode: .track, limit: false).factor(for: loud) == 2043)
        // Unknown peak: nothing to limit by.
        #expect(Self.track.factor(for: ReplayGainInfo(trackGain: 6)) == 2043)
        // A gain that keeps the peak below full scale is left as it is.
        #expect(Self.track.factor(for: ReplayGainInfo(trackGain: -6, trackPeak: 0.9)) == 513)
        // The album peak goes with the album gain.
        let album = ReplayGainInfo(trackGain: 6, trackPeak: 0.25, albumGain: 6, albumPeak: 0.8)
        #expect(Self.album.factor(for: album) == 1280)
        #expect(Self.track.factor(for: album) == 2043)
    }

    @Test func theScaleStopsAt15() {
        let settings = ReplayGainSettings(mode: .track, preamp: 15, limit: false)
        #expect(settings.scale(for: ReplayGainInfo(trackGain: 20)) == 15)
        #expect(settings.factor(for: ReplayGainInfo(trackGain: 20)) == 15 * 1024)
    }

    // MARK: The samples

    static func scaled<T>(_ samples: [T], factor: Int, _ sample: PCMFormat.Sample) -> [T] {
        var buffer = samples
        var stage = SoftwareVolume()
        buffer.withUnsafeMutableBytes { stage.apply(factor: factor, to: $0, sample: sample) }
        return buffer
    }

    @Test func s16IsWhatMPDEmits() {
        #expect(
            Self.scaled(Self.s16, factor: 513, .s16) == [
                1, -1, 1, 0, -1, 257, -258, 16417, -16417, 501, -501, 6184, -6184,
            ])
        // +6 dB clips at full scale instead of wrapping.
        #expect(
            Self.scaled(Self.s16, factor: 2043, .s16) == [
                1, 0, 0, 3, -4, 1020, -1023, 32767, -32768, 1995, -1994, 24629, -24629,
            ])
    }

    @Test func s24IsWhatMPDEmits() {
        #expect(
            Self.scaled(Self.s24, factor: 513, .s24) == [
                1, -1, 1, 0, -1, 4_202_496, -4_202_497, 50099, -50099, 2_101_249, -2_101_249, 618_489, -618_489,
            ])
        #expect(
            Self.scaled(Self.s24, factor: 2043, .s24) == [
                1, 0, 0, 3, -4, 8_388_607, -8_388_608, 199_512, -199_512, 8_368_129, -8_368_129, 2_463_106, -2_463_106,
            ])
    }

    @Test func s32FollowsTheSameArithmeticAndClipsAt32Bits() {
        // Below clipping, 32-bit samples go through the very steps 24-bit ones do.
        #expect(Self.scaled(Self.s24, factor: 513, .s32) == Self.scaled(Self.s24, factor: 513, .s24))
        let loud = Self.scaled([Int32.max, .min, 1_500_000_000, -1_500_000_000], factor: 2043, .s32)
        #expect(loud[0] == .max && loud[1] == .min && loud[2] == .max && loud[3] == .min)
    }

    @Test func floatIsMultipliedWithoutClipping() {
        let samples: [Float] = [0, 1, -1, 0.5, -0.25, 0.123456]
        #expect(Self.scaled(samples, factor: 513, .float) == samples.map { $0 * (Float(513) / 1024) })
        // MPD leaves float above full scale; the output's conversion clips it.
        #expect(Self.scaled(samples, factor: 2043, .float) == samples.map { $0 * (Float(2043) / 1024) })
    }
}
