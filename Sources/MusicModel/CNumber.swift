/// The C library's integer conversions, which MPD's syntaxes are defined by: its command
/// arguments, its filter expressions and its audio formats.
///
/// In MusicModel because the audio format parser, which Playback uses without the protocol,
/// needs them as much as MPDProtocol's parsers do; `package` keeps them out of the public
/// vocabulary.
package enum CNumber {
    /// The value `strtol` reads and the bytes it left, or `nil` when it read no digits.
    package static func strtol(_ text: String) -> (value: Int, rest: ArraySlice<UInt8>)? {
        strtol(bytes: Array(text.utf8)[...])
    }

    /// `strtol` over bytes: blanks, a sign, decimal digits; overflow saturates like the C call.
    package static func strtol(bytes: ArraySlice<UInt8>) -> (value: Int, rest: ArraySlice<UInt8>)? {
        guard let (negative, magnitude, _, rest) = scanInteger(bytes) else { return nil }
        if negative {
            return (magnitude > UInt64(Int.max) ? Int.min : -Int(magnitude), rest)
        }
        return (magnitude > UInt64(Int.max) ? Int.max : Int(magnitude), rest)
    }

    /// `strtoul`: as `strtol`, but a minus sign negates in unsigned arithmetic (so `-1` is the
    /// largest value) and overflow saturates at `UInt64.max`.
    package static func strtoul(_ text: String) -> (value: UInt64, rest: ArraySlice<UInt8>)? {
        strtoul(bytes: Array(text.utf8)[...])
    }

    /// `strtoul` over bytes.
    package static func strtoul(bytes: ArraySlice<UInt8>) -> (value: UInt64, rest: ArraySlice<UInt8>)? {
        guard let (negative, magnitude, overflow, rest) = scanInteger(bytes) else { return nil }
        // On overflow strtoul returns the maximum whatever the sign.
        if overflow { return (UInt64.max, rest) }
        return (negative ? 0 &- magnitude : magnitude, rest)
    }

    /// `strtoul` on `bytes` from `start`, for parsers that keep an index into an array: the
    /// value and the index after the digits, or `nil` when there were no digits (C's
    /// `endptr == s`) or `start` is past the end.
    package static func strtoul(_ bytes: [UInt8], from start: Int) -> (value: UInt64, end: Int)? {
        guard start <= bytes.count, let parsed = strtoul(bytes: bytes[start...]) else { return nil }
        return (parsed.value, parsed.rest.startIndex)
    }

    /// C's `isspace` in the C locale.
    package static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    private static func scanInteger(
        _ bytes: ArraySlice<UInt8>
    ) -> (negative: Bool, magnitude: UInt64, overflow: Bool, rest: ArraySlice<UInt8>)? {
        var index = bytes.startIndex
        while index < bytes.endIndex, isSpace(bytes[index]) { index += 1 }
        var negative = false
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        let digitsStart = index
        var magnitude: UInt64 = 0
        var overflow = false
        while index < bytes.endIndex, (0x30...0x39).contains(bytes[index]) {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(bytes[index] - 0x30))
            overflow = overflow || o1 || o2
            magnitude = sum
            index += 1
        }
        guard index > digitsStart else { return nil }
        return (negative, overflow ? UInt64.max : magnitude, overflow, bytes[index...])
    }
}
