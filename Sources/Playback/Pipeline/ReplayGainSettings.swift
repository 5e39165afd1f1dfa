import Glibc
package import Settings

/// How loud each song plays under replay gain: the `replaygain_*` options, the mode in effect,
/// and MPD's arithmetic that turns a song's tags into a volume factor.
///
/// MPD computes the scale in single precision (`ReplayGainTuple::CalculateScale`), then turns
/// it into its fixed-point volume (`pcm_float_to_volume`: × 1024, + ½, truncated) and scales
/// the samples with `PcmVolume`, the arithmetic of the software mixer. Tonearm does the same
/// steps in the same precision, so a song's factor is MPD's to the last bit and the samples
/// that reach an output are MPD's (``SoftwareVolume/apply(factor:to:sample:)``):
///
/// 1. The mode picks the gain: `album` takes the album gain and peak, or the track's when the
///    song has no album gain; `track` the reverse (MPD's `ReplayGainInfo::Get`). A gain counts
///    when it is above −100 dB, as in MPD.
/// 2. With a gain, `scale = 10^(gain / 20) × preamp`, capped at 15; with `replaygain_limit`,
///    if `scale × peak > 1` then `scale = 1 / peak`. A missing peak is 0, which never limits.
/// 3. Without one (no tags, or only peaks), `scale = missing_preamp`.
/// 4. `preamp` and `missing_preamp` are the options' dB turned linear when they are read
///    (MPD's `ParsePreamp`: `10^(dB / 20)` in double precision, stored as a float).
/// 5. `off` is a factor of exactly 1024, which leaves the samples untouched.
package struct ReplayGainSettings: Sendable, Equatable {
    /// The mode in effect: `off`, `track` or `album`. `auto` is resolved by the player, which
    /// knows whether random is on (``effectiveMode(_:random:)``); here it counts as `album`.
    package var mode: ReplayGainMode
    /// `replaygain_preamp`, dB, for songs that have a gain.
    package var preamp: Double
    /// `replaygain_missing_preamp`, dB, for songs that have none.
    package var missingPreamp: Double
    /// `replaygain_limit`: never let the gain push the song's peak above full scale.
    package var limit: Bool

    /// Settings with MPD's defaults: off, 0 dB, 0 dB, limited.
    package init(mode: ReplayGainMode = .off, preamp: Double = 0, missingPreamp: Double = 0, limit: Bool = true) {
        self.mode = mode
        self.preamp = preamp
        self.missingPreamp = missingPreamp
        self.limit = limit
    }

    /// The options from the configuration; the mode starts `off` until the player sets the
    /// one in effect.
    package init(configuration: TonearmConfiguration) {
        self.init(
            preamp: configuration.replayGainPreamp, missingPreamp: configuration.replayGainMissingPreamp,
            limit: configuration.replayGainLimit)
    }

    /// The mode the pipeline applies for the partition's mode (MPD's
    /// `Partition::UpdateEffectiveReplayGainMode`): `auto` is `track` while random is on,
    /// since shuffled songs of different albums should sound equally loud, and `album`
    /// otherwise, keeping an album's own dynamics.
    package static func effectiveMode(_ mode: ReplayGainMode, random: Bool) -> ReplayGainMode {
        mode == .auto ? (random ? .track : .album) : mode
    }

    /// The linear scale for a song with `info` (`nil`: no replay gain tags), or `nil` when
    /// the mode is `off`.
    package func scale(for info: ReplayGainInfo?) -> Float? {
        guard mode != .off else { return nil }
        let (gain, peak) = tuple(of: info)
        guard let gain else { return Self.linear(missingPreamp) }
        var scale = powf(10, gain / 20) * Self.linear(preamp)
        if scale > 15 { scale = 15 }
        if limit && scale * peak > 1 { scale = 1 / peak }
        return scale
    }

    /// The song's factor in MPD's fixed point (1024 = unchanged), as
    /// ``SoftwareVolume/apply(factor:to:sample:)`` takes it.
    package func factor(for info: ReplayGainInfo?) -> Int {
        guard let scale = scale(for: info) else { return SoftwareVolume.unity }
        return Int(scale * Float(SoftwareVolume.unity) + 0.5)
    }

    /// The gain (`nil` when undefined) and peak (0 when unknown) the mode picks, in MPD's
    /// single precision.
    private func tuple(of info: ReplayGainInfo?) -> (gain: Float?, peak: Float) {
        guard let info else { return (nil, 0) }
        func defined(_ gain: Double?) -> Float? { gain.map(Float.init).flatMap { $0 > -100 ? $0 : nil } }
        let track = (gain: defined(info.trackGain), peak: Float(info.trackPeak ?? 0))
        let album = (gain: defined(info.albumGain), peak: Float(info.albumPeak ?? 0))
        if mode == .track {
            return track.gain != nil ? track : album
        }
        return album.gain != nil ? album : track
    }

    /// dB to linear as MPD's `ParsePreamp` does it: the option is parsed into a float, the
    /// power taken in double precision, the result stored as a float.
    static func linear(_ decibels: Double) -> Float {
        Float(pow(10, Double(Float(decibels)) / 20))
    }
}
