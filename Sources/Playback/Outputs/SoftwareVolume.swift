import Glibc

/// Volume by scaling the samples (`mixer_type "software"`), with MPD's arithmetic, so that for
/// each sample type Tonearm at `setvol 50` computes the samples MPD 0.23 computes (checked
/// against Debian's `mpd` 0.23.12 writing to a pipe output; the tests carry its output).
///
/// **Percent to factor** (MPD's `PercentVolumeToSoftwareVolume`): the volume is a fixed-point
/// factor with 10 fractional bits (1024 = 100 %). 100 % is 1024 and 0 % is 0; in between the
/// curve is exponential, `(e^(v/25) − 1) / (e^4 − 1)`, computed in single precision, times 1024,
/// plus ½, truncated. So 50 % is 122 (−18.5 dB), 75 % is 365, 25 % is 33: loudness falls
/// evenly, unlike a linear `v × 1024 / 100`. See ``factor(percent:)``.
///
/// **Scaling** (MPD's `PcmVolume::Apply`), per sample type:
/// - 16-bit: `s × factor`, 26 significant bits, back to 16 with ``PCMDither``.
/// - 24-bit (in 32-bit words): `s × factor`, 34 bits, back to 24 with dither.
/// - 32-bit: `s × factor` in 64 bits, 42 bits, back to 32 with dither.
/// - float: `s × (factor / 1024)` in single precision; no dither, no clipping.
/// - factor 0 writes silence and factor 1024 leaves the buffer alone; neither touches the dither
///   state.
///
/// **16-bit sources.** MPD does not scale 16-bit audio at 16 bits: before the volume stage it
/// widens it to 24 bits (`s << 8`, in the replay-gain stage, which always runs), so an output
/// with a software mixer receives 24-bit audio, the volume is dithered at 24 bits, and an
/// output that takes 16 bits gets it dithered back by MPD's format conversion (even at 100 %).
/// The pipeline's output thread does not do that: it scales 16-bit samples in place with the
/// 16-bit arithmetic above (one dither stage) and leaves them untouched at 100 %. Its bytes at
/// volume 50 therefore differ from MPD's by up to 4 LSB in about two thirds of the samples,
/// and a 16-bit song stays 16-bit at the output (measured in
/// `Tests/Integration/test_audio_output.py`; documented in docs/configuration.md).
/// ``widen16To24(_:into:)`` is MPD's first step, kept and unit-tested against MPD's samples
/// for emitting MPD's exact bytes.
///
/// A value carries the dither state, which runs on from one buffer to the next: keep one per
/// output, ``reset()`` it when the output opens. Nothing here allocates.
package struct SoftwareVolume: Sendable {
    /// The factor for 100 %.
    package static let unity = 1024
    /// The fractional bits of a factor.
    package static let fractionBits = 10

    private var dither = PCMDither()

    /// A volume stage with fresh dither state.
    package init() {}

    /// Restarts the dither state, as a newly opened MPD output starts it.
    package mutating func reset() {
        dither = PCMDither()
    }

    /// MPD's fixed-point factor (0…1024) for a volume in percent (clamped to 0…100).
    package static func factor(percent: Int) -> Int {
        if percent >= 100 { return unity }
        if percent <= 0 { return 0 }
        let curve: Float = (expf(Float(percent) / 25) - 1) / (Float(54.5981500331) - 1)
        return Int(Double(curve * Float(unity)) + 0.5)
    }

    /// Scales the samples in `buffer`, in place, to `volume` percent.
    package mutating func apply(_ volume: Int, to buffer: UnsafeMutableRawBufferPointer, format: PCMFormat) {
        apply(factor: Self.factor(percent: volume), to: buffer, sample: format.sample)
    }

    /// Scales the samples in `buffer`, in place, by `factor` / 1024. A trailing partial sample
    /// is left alone. Replay gain uses this too (MPD's `ReplayGainFilter` is a `PcmVolume`),
    /// with factors up to 15 × 1024: integer samples then clip at full scale, floats do not.
    package mutating func apply(factor: Int, to buffer: UnsafeMutableRawBufferPointer, sample: PCMFormat.Sample) {
        guard factor != Self.unity, let base = buffer.baseAddress else { return }
        let count = buffer.count / sample.size
        if factor == 0 {
            memset(base, 0, count * sample.size)
            return
        }
        let scale = Int64(factor)
        switch sample {
        case .s16:
            for i in 0..<count {
                let offset = i * 2
                let value = Int64(base.loadUnaligned(fromByteOffset: offset, as: Int16.self))
                let scaled = dither.shift(
                    value * scale, sourceBits: 16 + Self.fractionBits, scaleBits: Self.fractionBits)
                base.storeBytes(of: Int16(truncatingIfNeeded: scaled), toByteOffset: offset, as: Int16.self)
            }
        case .s24, .s32:
            let bits = sample == .s24 ? 24 : 32
            for i in 0..<count {
                let offset = i * 4
                let value = Int64(base.loadUnaligned(fromByteOffset: offset, as: Int32.self))
                let scaled = dither.shift(
                    value * scale, sourceBits: bits + Self.fractionBits, scaleBits: Self.fractionBits)
                base.storeBytes(of: Int32(truncatingIfNeeded: scaled), toByteOffset: offset, as: Int32.self)
            }
        case .float:
            let gain = Float(factor) / Float(Self.unity)
            for i in 0..<count {
                let offset = i * 4
                let value = base.loadUnaligned(fromByteOffset: offset, as: Float.self)
                base.storeBytes(of: value * gain, toByteOffset: offset, as: Float.self)
            }
        }
    }

    /// Widens 16-bit samples to 24-bit ones (`s << 8`, in 32-bit words), as MPD does before its
    /// volume stage. `destination` needs twice the bytes of `source`; returns the bytes
    /// written (fewer if it is too small).
    @discardableResult
    package static func widen16To24(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer)
        -> Int
    {
        guard let input = source.baseAddress, let output = destination.baseAddress else { return 0 }
        let count = min(source.count / 2, destination.count / 4)
        for i in 0..<count {
            let value = Int32(input.loadUnaligned(fromByteOffset: i * 2, as: Int16.self))
            output.storeBytes(of: value << 8, toByteOffset: i * 4, as: Int32.self)
        }
        return count * 4
    }
}
