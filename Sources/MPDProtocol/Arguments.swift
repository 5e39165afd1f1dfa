public import MusicModel

#if canImport(Glibc)
    import Glibc
#endif

/// Parsers for MPD's scalar argument syntaxes, with MPD's error messages (`ArgParser.cxx`).
///
/// They reproduce the C library conversions MPD relies on (`strtol`, `strtoul`, `strtof`),
/// including their leniencies: leading blanks and a sign are accepted, and an unsigned value
/// given as `-1` wraps around and is then "too large".
public enum Arguments {
    /// A signed integer in `range`: `Integer expected: X` or `Number too large: X`.
    public static func integer(_ text: String, in range: ClosedRange<Int> = Int(Int32.min)...Int(Int32.max))
        throws(MPDError) -> Int
    {
        guard let parsed = CNumber.strtol(text), parsed.rest.isEmpty else {
            throw MPDError(.argument, "Integer expected: \(text)")
        }
        guard range.contains(parsed.value) else { throw MPDError(.argument, "Number too large: \(text)") }
        return parsed.value
    }

    /// An unsigned integer no larger than `maximum`: `Integer expected: X` or
    /// `Number too large: X`.
    public static func unsigned(_ text: String, maximum: UInt64 = UInt64(UInt32.max)) throws(MPDError) -> UInt64 {
        guard let parsed = CNumber.strtoul(text), parsed.rest.isEmpty else {
            throw MPDError(.argument, "Integer expected: \(text)")
        }
        guard parsed.value <= maximum else { throw MPDError(.argument, "Number too large: \(text)") }
        return parsed.value
    }

    /// `0` or `1` (anything `strtol` reads as 0 or 1, so `00` too): `Boolean (0/1) expected: X`.
    public static func boolean(_ text: String) throws(MPDError) -> Bool {
        guard let parsed = CNumber.strtol(text), parsed.rest.isEmpty, parsed.value == 0 || parsed.value == 1 else {
            throw MPDError(.argument, "Boolean (0/1) expected: \(text)")
        }
        return parsed.value == 1
    }

    /// A floating-point number as `strtof` reads it (`nan` and `inf` included):
    /// `Float expected: X`.
    public static func float(_ text: String) throws(MPDError) -> Float {
        guard let value = CNumber.strtof(text) else { throw MPDError(.argument, "Float expected: \(text)") }
        return value
    }

    /// A time in seconds that must not be negative: `Negative value not allowed: X`.
    public static func songTime(_ text: String) throws(MPDError) -> Double {
        let value = try float(text)
        guard !(value < 0) else { throw MPDError(.argument, "Negative value not allowed: \(text)") }
        return Double(value)
    }

    /// A position or a range: `N` (just N), `N:M` (half-open), `N:` (open-ended), `-1` (all).
    ///
    /// Messages: `Integer or range expected: X`, `Number is negative: X`,
    /// `Number too large: X`, `Malformed range: X`.
    public static func range(_ text: String) throws(MPDError) -> RangeArgument {
        guard let first = CNumber.strtol(text), first.rest.isEmpty || first.rest.first == UInt8(ascii: ":") else {
            throw MPDError(.argument, "Integer or range expected: \(text)")
        }
        if first.value == -1, first.rest.isEmpty { return .all }
        guard first.value >= 0 else { throw MPDError(.argument, "Number is negative: \(text)") }
        guard first.value <= Int(Int32.max) else { throw MPDError(.argument, "Number too large: \(text)") }

        var range = RangeArgument(start: first.value, end: first.value + 1)
        if !first.rest.isEmpty {
            let tail = first.rest.dropFirst()
            if tail.isEmpty {
                range.end = nil
                return range
            }
            let second = CNumber.strtol(bytes: tail)
            guard second?.rest.isEmpty ?? false else {
                throw MPDError(.argument, "Integer or range expected: \(text)")
            }
            let end = second?.value ?? Int(Int32.max)
            guard end >= 0 else { throw MPDError(.argument, "Number is negative: \(text)") }
            guard end <= Int(Int32.max) else { throw MPDError(.argument, "Number too large: \(text)") }
            range.end = end
        }
        if let end = range.end, end < range.start {
            throw MPDError(.argument, "Malformed range: \(text)")
        }
        return range
    }
}

/// The C library's number conversions, which MPD's argument syntax is defined by.
enum CNumber {
    /// The value `strtol` reads and the bytes it left, or `nil` when it read no digits.
    static func strtol(_ text: String) -> (value: Int, rest: ArraySlice<UInt8>)? {
        strtol(bytes: Array(text.utf8)[...])
    }

    /// `strtol` over bytes: blanks, a sign, decimal digits; overflow saturates like the C call.
    static func strtol(bytes: ArraySlice<UInt8>) -> (value: Int, rest: ArraySlice<UInt8>)? {
        guard let (negative, magnitude, _, rest) = scanInteger(bytes) else { return nil }
        if negative {
            return (magnitude > UInt64(Int.max) ? Int.min : -Int(magnitude), rest)
        }
        return (magnitude > UInt64(Int.max) ? Int.max : Int(magnitude), rest)
    }

    /// `strtoul`: as `strtol`, but a minus sign negates in unsigned arithmetic (so `-1` is the
    /// largest value) and overflow saturates at `UInt64.max`.
    static func strtoul(_ text: String) -> (value: UInt64, rest: ArraySlice<UInt8>)? {
        strtoul(bytes: Array(text.utf8)[...])
    }

    /// `strtoul` over bytes.
    static func strtoul(bytes: ArraySlice<UInt8>) -> (value: UInt64, rest: ArraySlice<UInt8>)? {
        guard let (negative, magnitude, overflow, rest) = scanInteger(bytes) else { return nil }
        // On overflow strtoul returns the maximum whatever the sign.
        if overflow { return (UInt64.max, rest) }
        return (negative ? 0 &- magnitude : magnitude, rest)
    }

    /// `strtof` that must consume the whole text.
    static func strtof(_ text: String) -> Float? {
        guard !text.isEmpty, !text.utf8.contains(0) else { return nil }
        return text.withCString { start -> Float? in
            var end: UnsafeMutablePointer<CChar>?
            let value = Glibc.strtof(start, &end)
            guard let end, end != UnsafeMutablePointer(mutating: start), end.pointee == 0 else { return nil }
            return value
        }
    }

    /// C's `isspace` in the C locale.
    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

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
