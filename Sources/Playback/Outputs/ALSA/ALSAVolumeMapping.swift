import Glibc

/// How a mixer element's value maps to 0…100, as alsamixer's `volume_mapping.c` does it, which
/// MPD's ALSA mixer uses; with the same mapping, `setvol 40` sets a card to the same level
/// under Tonearm as under MPD and alsamixer shows the same bar.
///
/// - An element without a usable dB range is linear on its raw range.
/// - One whose dB range spans at most 24 dB is linear in dB.
/// - Otherwise the level is `10^((dB − max) / 60 dB)`, rescaled so that the element's minimum is
///   0 unless that minimum is "mute": a cubic curve in amplitude, which matches perceived
///   loudness far better than a linear one (half way is about −18 dB rather than −6 dB).
///
/// dB values are in ALSA's unit, hundredths of a dB.
enum ALSAVolumeMapping {
    /// Up to this dB span (in 0.01 dB) the dB scale is used linearly.
    static let maxLinearDBScale = 24 * 100
    /// ALSA's dB value for "muted" (`SND_CTL_TLV_DB_GAIN_MUTE`).
    static let gainMute = -9_999_999

    /// The level 0…1 of a raw value.
    static func normalized(raw value: Int, min: Int, max: Int) -> Double {
        guard max != min else { return 0 }
        return Double(value - min) / Double(max - min)
    }

    /// The level 0…1 of a dB value (0.01 dB).
    static func normalized(dB value: Int, min: Int, max: Int) -> Double {
        guard max > min else { return 0 }
        if max - min <= maxLinearDBScale { return Double(value - min) / Double(max - min) }
        var level = pow(10, Double(value - max) / 6000)
        if min != gainMute {
            let floor = pow(10, Double(min - max) / 6000)
            level = (level - floor) / (1 - floor)
        }
        return level
    }

    /// The raw value for a level, rounded up.
    static func raw(forNormalized level: Double, min: Int, max: Int) -> Int {
        Int((level * Double(max - min)).rounded(.up)) + min
    }

    /// The dB value (0.01 dB) for a level, rounded up.
    static func dB(forNormalized level: Double, min: Int, max: Int) -> Int {
        if max - min <= maxLinearDBScale {
            return Int((level * Double(max - min)).rounded(.up)) + min
        }
        var level = level
        if min != gainMute {
            let floor = pow(10, Double(min - max) / 6000)
            level = level * (1 - floor) + floor
        }
        guard level > 0 else { return gainMute }
        return Int((6000 * log10(level)).rounded(.up)) + max
    }

    /// Percent from a level, rounded to nearest (MPD's `NormalizedToPercent`).
    static func percent(_ level: Double) -> Int {
        Int((100 * level).rounded())
    }
}
