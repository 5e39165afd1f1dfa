/// The 44-byte RIFF header MPD's `wave` encoder puts in front of the PCM it streams.
///
/// A stream has no end, so the sizes cannot be known. MPD writes a fake data length of
/// `0x0FFFFFFF` (and the RIFF size that follows from it) rather than 0 or `0xFFFFFFFF`, which
/// some players take for an empty or a broken file; Tonearm writes the same bytes so that a
/// player that works with MPD's stream works with this one.
package enum WaveHeader {
    /// The fake length of the `data` chunk, as MPD writes it.
    package static let fakeDataSize: UInt32 = 0x0FFF_FFFF

    /// The header for PCM with `channels` channels of `bits`-bit samples (each taking
    /// `bytesPerSample` bytes, which is 3 for packed 24-bit) at `sampleRate`.
    package static func bytes(channels: Int, bits: Int, bytesPerSample: Int, sampleRate: Int) -> [UInt8] {
        let blockAlign = channels * bytesPerSample
        var header: [UInt8] = []
        header.reserveCapacity(44)
        func append(_ text: String) { header.append(contentsOf: Array(text.utf8)) }
        func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
        func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
        append("RIFF")
        append32(4 + 8 + 16 + 8 &+ fakeDataSize)
        append("WAVE")
        append("fmt ")
        append32(16)
        append16(1)  // PCM
        append16(UInt16(truncatingIfNeeded: channels))
        append32(UInt32(truncatingIfNeeded: sampleRate))
        append32(UInt32(truncatingIfNeeded: sampleRate * blockAlign))
        append16(UInt16(truncatingIfNeeded: blockAlign))
        append16(UInt16(truncatingIfNeeded: bits))
        append("data")
        append32(fakeDataSize)
        return header
    }
}
