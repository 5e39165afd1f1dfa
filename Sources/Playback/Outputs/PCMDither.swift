/// The dither MPD applies when it drops the low bits of a sample (`PcmDither`), reproduced
/// bit for bit so that Tonearm's software volume emits the very samples MPD's does.
///
/// For each sample, in interleaved order across channels:
/// 1. Noise shaping: the sample gets `e0 − e1 + e2` added, where `e0` is the previous
///    sample's quantisation error, and the history moves on (`e2 ← e1`, `e1 ← e0 / 2`,
///    division truncating toward zero).
/// 2. Rounding plus triangular noise: half an output step is added, plus
///    `(r₁ & mask) − (r₀ & mask)`, where `mask` is the dropped bits and `r₁ = r₀ × 0x19660D +
///    0x3C6EF35F mod 2³²` is a linear congruential generator seeded with 0.
/// 3. The result is clipped to the source range (the shaped sample too, when it overflowed),
///    its dropped bits are cleared, and `e0` becomes the shaped sample minus that.
/// 4. The output is the result shifted right by the dropped bits.
///
/// The state starts at zero when an output opens (MPD builds a new filter per open), so two
/// playbacks of the same audio give the same bytes.
struct PCMDither: Sendable {
    private var error0: Int32 = 0
    private var error1: Int32 = 0
    private var error2: Int32 = 0
    private var random: UInt32 = 0

    /// Drops `scaleBits` from `sample`, a value of `sourceBits` significant bits, with
    /// dither (MPD's `DitherShift`).
    @inline(__always)
    mutating func shift(_ sample: Int64, sourceBits: Int, scaleBits: Int) -> Int64 {
        let minimum = -(Int64(1) << (sourceBits - 1))
        let maximum = (Int64(1) << (sourceBits - 1)) - 1
        let round = Int64(1) << (scaleBits - 1)
        let mask = (Int64(1) << scaleBits) - 1

        var sample = sample + Int64(error0) - Int64(error1) + Int64(error2)
        error2 = error1
        error1 = error0 / 2

        var output = sample + round
        let next = random &* 0x0019_660D &+ 0x3C6E_F35F
        output += (Int64(next) & mask) - (Int64(random) & mask)
        random = next

        if output > maximum {
            output = maximum
            if sample > maximum { sample = maximum }
        } else if output < minimum {
            output = minimum
            if sample < minimum { sample = minimum }
        }
        output &= ~mask
        error0 = Int32(truncatingIfNeeded: sample - output)
        return output >> scaleBits
    }
}
