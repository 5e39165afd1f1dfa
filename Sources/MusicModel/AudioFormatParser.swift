extension AudioFormatPattern {
    /// Why a format did not parse, with MPD's message (`Invalid sample rate: 0`).
    ///
    /// A message and nothing else because every caller shows it as it is: the filter parser
    /// as a bad-argument ACK, `outputset` and the `allowed_formats` option in their own words
    /// around it. Not `MPDError`, so that Playback parses formats without the protocol.
    package struct ParseError: Error, Sendable, Equatable {
        /// MPD's message for the failure.
        package let message: String

        /// Creates an error with MPD's `message`.
        package init(_ message: String) { self.message = message }
    }

    /// Parses the operand of `AudioFormat ==` / `=~` as MPD's `ParseAudioFormat`
    /// (src/pcm/AudioParser.cxx) does, with its messages.
    ///
    /// `RATE:BITS:CHANNELS`, where BITS is `8`, `16`, `24` (also `24_3`), `32`, `f` or `dsd`;
    /// `dsdN:CHANNELS` (N even, 32...4096) is DSD at N × 44100 / 8 Hz. With `mask`, any field may
    /// be `*`. Numbers are read with `strtoul`, so blanks and a sign are accepted; the sample
    /// rate and channel count are checked after narrowing to 32 bits, as in MPD.
    package static func parse(_ text: String, mask: Bool) throws(ParseError) -> AudioFormatPattern {
        // MPD reads a C string, so an embedded NUL ends the text.
        let bytes = Array(text.utf8.prefix { $0 != 0 })
        var index = 0

        if bytes.starts(with: "dsd".utf8), let dsd = CNumber.strtoul(bytes, from: 3),
            byte(bytes, dsd.end) == UInt8(ascii: ":"),
            (32...4096).contains(dsd.value), dsd.value % 2 == 0
        {
            index = dsd.end + 1
            let channels = try channelCount(bytes, &index, mask: mask)
            try expectEnd(bytes, index)
            return AudioFormatPattern(
                sampleRate: UInt32(dsd.value * 44_100 / 8), bits: "dsd", channels: channels, isMask: mask)
        }

        let sampleRate = try sampleRate(bytes, &index, mask: mask)
        guard byte(bytes, index) == UInt8(ascii: ":") else { throw ParseError("Sample format missing") }
        index += 1
        let bits = try sampleFormat(bytes, &index, mask: mask)
        guard byte(bytes, index) == UInt8(ascii: ":") else { throw ParseError("Channel count missing") }
        index += 1
        let channels = try channelCount(bytes, &index, mask: mask)
        try expectEnd(bytes, index)
        return AudioFormatPattern(sampleRate: sampleRate, bits: bits, channels: channels, isMask: mask)
    }

    private static func sampleRate(_ bytes: [UInt8], _ index: inout Int, mask: Bool) throws(ParseError) -> UInt32? {
        if wildcard(bytes, &index, mask: mask) { return nil }
        let number = try unsigned(bytes, &index, else: "Failed to parse the sample rate")
        // MPD validates the value narrowed to `unsigned` but prints the `unsigned long`.
        let rate = UInt32(truncatingIfNeeded: number)
        guard rate > 0, rate < 1 << 30 else { throw ParseError("Invalid sample rate: \(number)") }
        return rate
    }

    private static func sampleFormat(_ bytes: [UInt8], _ index: inout Int, mask: Bool) throws(ParseError) -> String? {
        if wildcard(bytes, &index, mask: mask) { return nil }
        if byte(bytes, index) == UInt8(ascii: "f") {
            index += 1
            return "f"
        }
        if bytes[index...].starts(with: "dsd".utf8) {
            index += 3
            return "dsd"
        }
        let number = try unsigned(bytes, &index, else: "Failed to parse the sample format")
        switch number {
        case 8: return "8"
        case 16: return "16"
        case 24:
            // The pre-0.17 spelling of packed 24-bit samples.
            if bytes[index...].starts(with: "_3".utf8) { index += 2 }
            return "24"
        case 32: return "32"
        default: throw ParseError("Invalid sample format: \(number)")
        }
    }

    private static func channelCount(_ bytes: [UInt8], _ index: inout Int, mask: Bool) throws(ParseError) -> UInt8? {
        if wildcard(bytes, &index, mask: mask) { return nil }
        let number = try unsigned(bytes, &index, else: "Failed to parse the channel count")
        // MPD checks and prints the value narrowed to `unsigned` (`%u`).
        let channels = UInt32(truncatingIfNeeded: number)
        guard (1...8).contains(channels) else { throw ParseError("Invalid channel count: \(channels)") }
        return UInt8(channels)
    }

    /// Whether the field is `*` in a mask; moves past it when it is.
    private static func wildcard(_ bytes: [UInt8], _ index: inout Int, mask: Bool) -> Bool {
        guard mask, byte(bytes, index) == UInt8(ascii: "*") else { return false }
        index += 1
        return true
    }

    /// The number `strtoul` reads at `index` (moving past it), or MPD's `message` when it reads none.
    private static func unsigned(_ bytes: [UInt8], _ index: inout Int, else message: String) throws(ParseError)
        -> UInt64
    {
        guard let number = CNumber.strtoul(bytes, from: index) else { throw ParseError(message) }
        index = number.end
        return number.value
    }

    private static func expectEnd(_ bytes: [UInt8], _ index: Int) throws(ParseError) {
        guard index < bytes.count else { return }
        let extra = String(decoding: bytes[index...], as: UTF8.self)
        throw ParseError("Extra data after channel count: \(extra)")
    }

    private static func byte(_ bytes: [UInt8], _ index: Int) -> UInt8 {
        index < bytes.count ? bytes[index] : 0
    }
}
