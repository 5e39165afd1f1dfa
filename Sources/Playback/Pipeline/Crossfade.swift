import Glibc

/// The `crossfade`, `mixrampdb` and `mixrampdelay` settings, and the decisions MPD's player
/// takes with them at each song change (MPD's `CrossFadeSettings`, src/player/CrossFade.cxx).
///
/// - Crossfade happens only when it is enabled (`seconds` > 0), both songs have a known
///   duration of at least 20 s (``minimumSongSeconds``) and longer than the fade, and the next
///   song decodes to the format the current one plays in (MPD compares the decoder's output
///   format, hence its advice to set `audio_output_format`). The pipeline also skips it when it
///   is to pause at the border (`single`).
/// - The overlap is `seconds` worth of chunks; with MixRamp enabled (`mixrampdelay` > 0, so
///   `nan` disables it) and both songs tagged (the next song's `MIXRAMP_START`, the current
///   one's `MIXRAMP_END`) it is where the two ramps reach `mixrampdb` (less each song's replay
///   gain), added, minus `mixrampdelay`; when the ramps say nothing usable there is no overlap
///   at all.
package struct CrossfadeSettings: Sendable, Equatable {
    /// `crossfade`: the fade in seconds; 0 disables it.
    package var seconds: Double
    /// `mixrampdb`: the loudness, in dB, at which MixRamp joins the songs.
    package var mixRampDB: Float
    /// `mixrampdelay`: seconds taken off the MixRamp overlap; ≤ 0 or `nan` disables MixRamp.
    package var mixRampDelay: Float

    /// Songs shorter than this never crossfade (MPD's `MIN_TOTAL_TIME`).
    package static let minimumSongSeconds = 20.0

    /// Creates settings; the defaults are MPD's (no crossfade, MixRamp off).
    package init(seconds: Double = 0, mixRampDB: Float = 0, mixRampDelay: Float = -1) {
        self.seconds = seconds
        self.mixRampDB = mixRampDB
        self.mixRampDelay = mixRampDelay
    }

    /// Whether songs are crossfaded at all.
    package var isEnabled: Bool { seconds > 0 }

    /// Equal when every field has the same bits, so that `nan` (which `mixrampdb` and
    /// `mixrampdelay` accept) equals itself: the decoder compares settings before each chunk
    /// to know whether its plan for the next song still holds.
    package static func == (a: CrossfadeSettings, b: CrossfadeSettings) -> Bool {
        a.seconds.bitPattern == b.seconds.bitPattern && a.mixRampDB.bitPattern == b.mixRampDB.bitPattern
            && a.mixRampDelay.bitPattern == b.mixRampDelay.bitPattern
    }

    /// Whether MixRamp decides the overlap and the songs are added rather than faded. MPD
    /// adds them whenever `mixrampdelay` > 0, even when the tags are missing and the overlap
    /// falls back to the crossfade's length (measured with MPD 0.23).
    package var isMixRampEnabled: Bool { mixRampDelay > 0 }

    /// Whether the songs of these durations (seconds, `nil` when unknown) crossfade.
    package func canCrossfade(current: Double?, next: Double?, sameFormat: Bool) -> Bool {
        func long(_ duration: Double?) -> Bool {
            guard let duration else { return false }
            return duration >= Self.minimumSongSeconds && seconds < duration
        }
        return isEnabled && long(current) && long(next) && sameFormat
    }

    /// The number of chunks the two songs overlap by (MPD's `Calculate`); 0 for none.
    /// - Parameters:
    ///   - chunkSeconds: how long one chunk plays.
    ///   - gainDB, previousGainDB: the replay gain applied to the next and the current song.
    ///   - mixRampStart: the next song's `MIXRAMP_START`.
    ///   - mixRampPreviousEnd: the current song's `MIXRAMP_END`.
    ///   - maximumChunks: what the buffer can hold.
    package func overlapChunks(
        chunkSeconds: Double, gainDB: Float = 0, previousGainDB: Float = 0,
        mixRampStart: String?, mixRampPreviousEnd: String?, maximumChunks: Int
    ) -> Int {
        guard isEnabled, chunkSeconds > 0 else { return 0 }
        var chunks = 0
        if !isMixRampEnabled || mixRampStart == nil || mixRampPreviousEnd == nil {
            chunks = Int(lround(seconds / chunkSeconds))
        } else if let start = mixRampStart, let end = mixRampPreviousEnd {
            let current = Self.interpolate(ramp: start, requiredDB: mixRampDB - gainDB)
            let previous = Self.interpolate(ramp: end, requiredDB: mixRampDB - previousGainDB)
            let overlap = current + previous
            if current >= 0 && previous >= 0 && Double(mixRampDelay) <= overlap {
                chunks = Int(lround((overlap - Double(mixRampDelay)) / chunkSeconds))
            }
        }
        return min(chunks, max(0, maximumChunks))
    }

    /// Where a MixRamp ramp reaches `requiredDB`, in seconds (from the song's start for
    /// `MIXRAMP_START`, before its end for `MIXRAMP_END`), or −1 when it never does or the
    /// text is malformed before it does (MPD's `mixramp_interpolate`).
    ///
    /// A ramp is `dB seconds` pairs separated by `;`, the decibels rising: `-40.00 0.10;-20.00
    /// 1.50;-10.00 3.00`. An exact match gives its time; otherwise the time is interpolated
    /// linearly between the last quieter pair and the first louder one, or is the first pair's
    /// time when even that is louder.
    package static func interpolate(ramp: String, requiredDB: Float) -> Double {
        ramp.withCString { text -> Double in
            var cursor = UnsafeMutablePointer(mutating: text)
            var last: (db: Float, seconds: Float)?
            while true {
                var end: UnsafeMutablePointer<CChar>?
                let db = strtof(cursor, &end)
                guard let afterDB = end, afterDB != cursor, afterDB.pointee == 0x20 else { break }
                cursor = afterDB + 1
                let seconds = strtof(cursor, &end)
                guard let afterTime = end, afterTime != cursor, afterTime.pointee == 0x3B || afterTime.pointee == 0
                else { break }
                cursor = afterTime.pointee == 0x3B ? afterTime + 1 : afterTime
                if db == requiredDB { return Double(seconds) }
                if db < requiredDB {
                    last = (db, seconds)
                    continue
                }
                guard let last else { return Double(seconds) }
                return Double(last.seconds + (requiredDB - last.db) * (seconds - last.seconds) / (db - last.db))
            }
            return -1
        }
    }
}

/// MPD's mixing of two songs' samples at a crossfade (`pcm_mix`, src/pcm/Mix.cxx).
///
/// A fade gives the incoming song the weight `sin²(π/2 × portion)` and the outgoing one the
/// rest, in MPD's fixed point (of 1024): for integer samples `new × v + old × (1024 − v)`
/// dithered back to the sample's width with ``PCMDither``, for floats the same weights as
/// fractions. The portion rises chunk by chunk: MPD gives the outgoing chunk `remaining /
/// total` of the fade and mixes with `1 −` that, so the curve is an S (measured with MPD 0.23:
/// each song at half amplitude halfway through). MixRamp adds the samples instead, clipped to
/// full scale. Nothing here allocates.
enum CrossfadeMix {
    /// The incoming song's weight, of 1024, at `portion` (0…1) of the fade.
    static func incomingVolume(portion: Float) -> Int {
        let s = sinf(Float.pi / 2 * portion)
        return min(max(Int(lroundf(s * s * Float(SoftwareVolume.unity))), 0), SoftwareVolume.unity)
    }

    /// The portion of the fade for the chunk that has `remaining` chunks of the fade left,
    /// itself included, out of `total`.
    static func portion(remaining: Int, total: Int) -> Float {
        total > 0 ? 1 - Float(remaining) / Float(total) : 1
    }

    /// Mixes the incoming song's samples into the outgoing song's, in place, over the shorter
    /// of the two: a fade at `portion`, or (`portion` nil, MixRamp) a plain sum.
    static func mix(
        _ incoming: UnsafeRawBufferPointer, into outgoing: UnsafeMutableRawBufferPointer, sample: PCMFormat.Sample,
        portion: Float?, dither: inout PCMDither
    ) {
        guard let a = outgoing.baseAddress, let b = incoming.baseAddress else { return }
        let count = min(incoming.count, outgoing.count) / sample.size
        guard let portion else {
            add(b, into: a, count: count, sample: sample)
            return
        }
        let incomingWeight = Int64(incomingVolume(portion: portion))
        let outgoingWeight = Int64(SoftwareVolume.unity) - incomingWeight
        let bits = SoftwareVolume.fractionBits
        switch sample {
        case .s16:
            for i in 0..<count {
                let offset = i * 2
                let sum =
                    Int64(b.loadUnaligned(fromByteOffset: offset, as: Int16.self)) * incomingWeight
                    + Int64(a.loadUnaligned(fromByteOffset: offset, as: Int16.self)) * outgoingWeight
                let value = dither.shift(sum, sourceBits: 16 + bits, scaleBits: bits)
                a.storeBytes(of: Int16(truncatingIfNeeded: value), toByteOffset: offset, as: Int16.self)
            }
        case .s24, .s32:
            let width = sample == .s24 ? 24 : 32
            for i in 0..<count {
                let offset = i * 4
                let sum =
                    Int64(b.loadUnaligned(fromByteOffset: offset, as: Int32.self)) * incomingWeight
                    + Int64(a.loadUnaligned(fromByteOffset: offset, as: Int32.self)) * outgoingWeight
                let value = dither.shift(sum, sourceBits: width + bits, scaleBits: bits)
                a.storeBytes(of: Int32(truncatingIfNeeded: value), toByteOffset: offset, as: Int32.self)
            }
        case .float:
            let inWeight = Float(incomingWeight) / Float(SoftwareVolume.unity)
            let outWeight = Float(outgoingWeight) / Float(SoftwareVolume.unity)
            for i in 0..<count {
                let offset = i * 4
                let value =
                    b.loadUnaligned(fromByteOffset: offset, as: Float.self) * inWeight
                    + a.loadUnaligned(fromByteOffset: offset, as: Float.self) * outWeight
                a.storeBytes(of: value, toByteOffset: offset, as: Float.self)
            }
        }
    }

    /// MixRamp's sum: each sample added, integers clipped to their range (MPD's `pcm_add`).
    private static func add(
        _ b: UnsafeRawPointer, into a: UnsafeMutableRawPointer, count: Int, sample: PCMFormat.Sample
    ) {
        switch sample {
        case .s16:
            for i in 0..<count {
                let offset = i * 2
                let sum =
                    Int32(a.loadUnaligned(fromByteOffset: offset, as: Int16.self))
                    + Int32(b.loadUnaligned(fromByteOffset: offset, as: Int16.self))
                a.storeBytes(
                    of: Int16(min(max(sum, Int32(Int16.min)), Int32(Int16.max))), toByteOffset: offset, as: Int16.self)
            }
        case .s24, .s32:
            let maximum: Int64 = sample == .s24 ? (1 << 23) - 1 : Int64(Int32.max)
            for i in 0..<count {
                let offset = i * 4
                let sum =
                    Int64(a.loadUnaligned(fromByteOffset: offset, as: Int32.self))
                    + Int64(b.loadUnaligned(fromByteOffset: offset, as: Int32.self))
                a.storeBytes(of: Int32(min(max(sum, -maximum - 1), maximum)), toByteOffset: offset, as: Int32.self)
            }
        case .float:
            for i in 0..<count {
                let offset = i * 4
                let sum =
                    a.loadUnaligned(fromByteOffset: offset, as: Float.self)
                    + b.loadUnaligned(fromByteOffset: offset, as: Float.self)
                a.storeBytes(of: sum, toByteOffset: offset, as: Float.self)
            }
        }
    }
}
