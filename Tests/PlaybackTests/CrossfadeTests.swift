import Foundation
import Testing

@testable import Playback

/// The crossfade arithmetic: MPD's rules for when songs crossfade and by how many chunks
/// (src/player/CrossFade.cxx), and its mixing (src/pcm/Mix.cxx). The whole pipeline is tested
/// against Debian's MPD in Tests/Integration/test_crossfade.py.
@Suite struct CrossfadeTests {
    /// One 4 KiB chunk of CD audio, in seconds.
    static let chunkSeconds = 1024.0 / 44100

    /// Mixes `incoming` into `outgoing` (integer samples) with fresh dither; returns the result.
    static func mixed<T>(_ outgoing: [T], _ incoming: [T], _ sample: PCMFormat.Sample, portion: Float?) -> [T] {
        var result = outgoing
        var dither = PCMDither()
        incoming.withUnsafeBytes { source in
            result.withUnsafeMutableBytes {
                CrossfadeMix.mix(source, into: $0, sample: sample, portion: portion, dither: &dither)
            }
        }
        return result
    }

    @Test func theIncomingSongsWeightFollowsMPDsSineSquaredCurve() {
        #expect(CrossfadeMix.incomingVolume(portion: 0) == 0)
        #expect(CrossfadeMix.incomingVolume(portion: 1) == 1024)
        #expect(CrossfadeMix.incomingVolume(portion: 0.5) == 512)
        // sin²(π/8) × 1024 = 149.96: a quarter into the fade the new song has 15 %, not 25 %.
        #expect(CrossfadeMix.incomingVolume(portion: 0.25) == 150)
        #expect(CrossfadeMix.incomingVolume(portion: 0.75) == 874)
    }

    @Test func thePortionRisesAsTheOutgoingSongsChunksRunOut() {
        // MPD gives the outgoing chunk `remaining / total` and mixes with 1 − that.
        #expect(CrossfadeMix.portion(remaining: 4, total: 4) == 0)
        #expect(CrossfadeMix.portion(remaining: 1, total: 4) == 0.75)
        #expect(CrossfadeMix.portion(remaining: 2, total: 4) == 0.5)
    }

    /// Whether every sample is within MPD's dither (up to 3 LSB of noise-shaped triangular
    /// noise, which MPD adds at every weight, 0 and 1024 included) of `exact`, and the mean is
    /// `exact` to a tenth of an LSB.
    static func near<T: BinaryInteger>(_ samples: [T], _ exact: Double) -> Bool {
        let mean = samples.reduce(0.0) { $0 + Double($1) } / Double(samples.count)
        return samples.allSatisfy { abs(Double($0) - exact) <= 3 } && abs(mean - exact) < 0.1
    }

    @Test func fadingWeighsBothSongsAndDithersBackTo16Bits() {
        let outgoing = [Int16](repeating: 1000, count: 256)
        let incoming = [Int16](repeating: 3000, count: 256)
        #expect(Self.near(Self.mixed(outgoing, incoming, .s16, portion: 0.5), 2000))
        #expect(Self.near(Self.mixed(outgoing, incoming, .s16, portion: 0.25), (3000.0 * 150 + 1000 * 874) / 1024))
        #expect(Self.near(Self.mixed(outgoing, incoming, .s16, portion: 0), 1000))
        #expect(Self.near(Self.mixed(outgoing, incoming, .s16, portion: 1), 3000))
    }

    @Test func fadingWorksForEverySampleType() {
        let s24 = Self.mixed(
            [Int32](repeating: 4_000_000, count: 256), [Int32](repeating: -4_000_000, count: 256), .s24, portion: 0.5)
        #expect(Self.near(s24, 0))
        let s32 = Self.mixed(
            [Int32](repeating: 1 << 30, count: 256), [Int32](repeating: 0, count: 256), .s32, portion: 0.25)
        // The outgoing song keeps (1024 − 150) / 1024.
        #expect(Self.near(s32, Double(1 << 30) * 874 / 1024))
        let float = Self.mixed(
            [Float](repeating: 0.8, count: 4), [Float](repeating: 0.4, count: 4), .float, portion: 0.5)
        #expect(float.allSatisfy { abs($0 - 0.6) < 1e-6 })
    }

    @Test func mixRampAddsTheSongsAndClipsAtFullScale() {
        #expect(
            Self.mixed([Int16](arrayLiteral: 1000, 30000, -30000), [2000, 30000, -30000], .s16, portion: nil) == [
                3000, 32767, -32768,
            ])
        #expect(Self.mixed([Int32](arrayLiteral: 8_000_000), [8_000_000], .s24, portion: nil) == [8_388_607])
        #expect(Self.mixed([Float](arrayLiteral: 0.75), [0.75], .float, portion: nil) == [1.5])
    }

    @Test func onlyTheShorterBufferIsMixed() {
        // The outgoing song's last chunk is short; its end is left for the caller.
        let result = Self.mixed([Int16](repeating: 100, count: 4), [Int16](repeating: 3000, count: 2), .s16, portion: 1)
        #expect(result[0...1].allSatisfy { abs(Int($0) - 3000) <= 2 } && result[2...] == [100, 100])
    }

    @Test func mixRampRampsAreInterpolatedAsMPDDoes() {
        let ramp = "-30.00 0.5;-20.00 1.0;-10.00 1.5"
        #expect(CrossfadeSettings.interpolate(ramp: ramp, requiredDB: -20) == 1.0)
        #expect(abs(CrossfadeSettings.interpolate(ramp: ramp, requiredDB: -25) - 0.75) < 1e-6)
        #expect(CrossfadeSettings.interpolate(ramp: ramp, requiredDB: -40) == 0.5, "louder than asked from the start")
        #expect(CrossfadeSettings.interpolate(ramp: ramp, requiredDB: -5) == -1, "never that loud")
        #expect(CrossfadeSettings.interpolate(ramp: "", requiredDB: -20) == -1)
        #expect(CrossfadeSettings.interpolate(ramp: "-30.00;0.5", requiredDB: -20) == -1, "malformed")
        #expect(CrossfadeSettings.interpolate(ramp: "-30 0.5;x 1", requiredDB: -20) == -1, "malformed before the match")
    }

    @Test func songsCrossfadeOnlyWhenMPDsRulesAllow() {
        let settings = CrossfadeSettings(seconds: 3)
        #expect(settings.canCrossfade(current: 25, next: 25, sameFormat: true))
        #expect(!settings.canCrossfade(current: 25, next: 25, sameFormat: false), "formats differ")
        #expect(!settings.canCrossfade(current: 19.9, next: 25, sameFormat: true), "shorter than 20 s")
        #expect(!settings.canCrossfade(current: 25, next: nil, sameFormat: true), "duration unknown")
        #expect(
            !CrossfadeSettings(seconds: 25).canCrossfade(current: 25, next: 30, sameFormat: true),
            "not longer than the fade")
        #expect(!CrossfadeSettings(seconds: 0).canCrossfade(current: 25, next: 25, sameFormat: true), "disabled")
    }

    @Test func settingsWithNaNEqualThemselves() {
        // `mixrampdelay nan` is accepted; the decoder must still see the same settings twice.
        let settings = CrossfadeSettings(seconds: 3, mixRampDB: .nan, mixRampDelay: .nan)
        #expect(settings == settings)
        #expect(settings != CrossfadeSettings(seconds: 3, mixRampDB: .nan, mixRampDelay: 1))
        #expect(!settings.isMixRampEnabled)
    }

    @Test func theOverlapIsTheFadeOrTheMixRampProfile() {
        let plain = CrossfadeSettings(seconds: 3)
        #expect(
            plain.overlapChunks(
                chunkSeconds: Self.chunkSeconds, mixRampStart: nil, mixRampPreviousEnd: nil, maximumChunks: 2000) == 129
        )
        #expect(
            plain.overlapChunks(
                chunkSeconds: Self.chunkSeconds, mixRampStart: nil, mixRampPreviousEnd: nil, maximumChunks: 100) == 100)
        // MixRamp off (delay ≤ 0 or nan): the tags do not count.
        for delay: Float in [0, -1, .nan] {
            let off = CrossfadeSettings(seconds: 3, mixRampDB: -20, mixRampDelay: delay)
            #expect(
                off.overlapChunks(
                    chunkSeconds: Self.chunkSeconds, mixRampStart: "-20 1", mixRampPreviousEnd: "-20 2",
                    maximumChunks: 2000) == 129)
        }
        let mixRamp = CrossfadeSettings(seconds: 3, mixRampDB: -20, mixRampDelay: 1)
        #expect(!plain.isMixRampEnabled && mixRamp.isMixRampEnabled)
        // 1 s into the next song + 2 s before the end of this one − 1 s of delay = 2 s.
        #expect(
            mixRamp.overlapChunks(
                chunkSeconds: Self.chunkSeconds, mixRampStart: "-30 0.5;-20 1.0",
                mixRampPreviousEnd: "-30 4.0;-20 2.0", maximumChunks: 2000) == 86)
        // Replay gain moves the level looked for: 6 dB louder songs reach −20 where they were −26.
        #expect(
            mixRamp.overlapChunks(
                chunkSeconds: Self.chunkSeconds, gainDB: 6, previousGainDB: 6,
                mixRampStart: "-30 0.5;-20 1.0", mixRampPreviousEnd: "-30 4.0;-20 2.0",
                maximumChunks: 2000) == Int(lround((0.7 + 3.2 - 1) / Self.chunkSeconds)))
        // A missing tag falls back to the fade's length.
        #expect(
            mixRamp.overlapChunks(
                chunkSeconds: Self.chunkSeconds, mixRampStart: nil, mixRampPreviousEnd: "-20 2",
                maximumChunks: 2000) == 129)
        // Ramps that say nothing usable, or a delay longer than the overlap: no overlap at all.
        #expect(
            mixRamp.overlapChunks(
                chunkSeconds: Self.chunkSeconds, mixRampStart: "-30 0.5", mixRampPreviousEnd: "-20 2",
                maximumChunks: 2000) == 0)
        let late = CrossfadeSettings(seconds: 3, mixRampDB: -20, mixRampDelay: 5)
        #expect(
            late.overlapChunks(
                chunkSeconds: Self.chunkSeconds, mixRampStart: "-20 1", mixRampPreviousEnd: "-20 2",
                maximumChunks: 2000) == 0)
    }
}
