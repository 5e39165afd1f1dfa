/// Converts interleaved samples between sample types at the same rate and channel count, for
/// a device that took another sample type than the stream's (an ALSA card without float
/// support, say). No allocation: the caller gives the destination.
enum SampleConversion {
    /// Bytes the conversion of `bytes` of `from` needs in `to`.
    static func outputSize(_ bytes: Int, from: PCMFormat.Sample, to: PCMFormat.Sample) -> Int {
        bytes / from.size * to.size
    }

    /// Converts `source` (samples of `from`) into `destination` (samples of `to`); returns the
    /// bytes written. Integers are shifted, floats scaled and clipped.
    static func convert(
        _ source: UnsafeRawBufferPointer, from: PCMFormat.Sample,
        into destination: UnsafeMutableRawBufferPointer, to: PCMFormat.Sample
    ) -> Int {
        let count = min(source.count / from.size, destination.count / to.size)
        for index in 0..<count {
            // Through a common 32-bit fixed point (s32 scale) or float.
            let value: Float
            switch from {
            case .s16: value = Float(source.load(fromByteOffset: index * 2, as: Int16.self)) / 32768
            case .s24: value = Float(source.load(fromByteOffset: index * 4, as: Int32.self)) / 8_388_608
            case .s32: value = Float(source.load(fromByteOffset: index * 4, as: Int32.self)) / 2_147_483_648
            case .float: value = source.load(fromByteOffset: index * 4, as: Float.self)
            }
            let clipped = max(-1, min(value, 1))
            switch to {
            case .s16:
                destination.storeBytes(
                    of: Int16(clamping: Int((clipped * 32768).rounded())), toByteOffset: index * 2, as: Int16.self)
            case .s24:
                destination.storeBytes(
                    of: Int32(clamping: Int((clipped * 8_388_608).rounded()).clamped(-8_388_608, 8_388_607)),
                    toByteOffset: index * 4, as: Int32.self)
            case .s32:
                destination.storeBytes(
                    of: Int32(clamping: Int64((Double(clipped) * 2_147_483_648).rounded())),
                    toByteOffset: index * 4, as: Int32.self)
            case .float:
                destination.storeBytes(of: value, toByteOffset: index * 4, as: Float.self)
            }
        }
        return count * to.size
    }
}

extension Int {
    fileprivate func clamped(_ low: Int, _ high: Int) -> Int { Swift.min(Swift.max(self, low), high) }
}
