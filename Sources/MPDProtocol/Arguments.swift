package import MusicModel

#if canImport(Glibc)
    import Glibc
#endif

/// Parsers for MPD's scalar argument syntaxes, with MPD's error messages (`ArgParser.cxx`).
///
/// They reproduce the C library conversions MPD relies on (`strtol`, `strtoul`, `strtof`),
/// including their leniencies: leading blanks and a sign are accepted, and an unsigned value
/// given as `-1` wraps around and is then "too large".
package enum Arguments {
    /// A signed integer in `range`: `Integer expected: X` or `Number too large: X`.
    package static func integer(_ text: String, in range: ClosedRange<Int> = Int(Int32.min)...Int(Int32.max))
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
    package static func unsigned(_ text: String, maximum: UInt64 = UInt64(UInt32.max)) throws(MPDError) -> UInt64 {
        guard let parsed = CNumber.strtoul(text), parsed.rest.isEmpty else {
            throw MPDError(.argument, "Integer expected: \(text)")
        }
        guard parsed.value <= maximum else { throw MPDError(.argument, "Number too large: \(text)") }
        return parsed.value
    }

    /// `0` or `1` (anything `strtol` reads as 0 or 1, so `00` too): `Boolean (0/1) expected: X`.
    package static func boolean(_ text: String) throws(MPDError) -> Bool {
        guard let parsed = CNumber.strtol(text), parsed.rest.isEmpty, parsed.value == 0 || parsed.value == 1 else {
            throw MPDError(.argument, "Boolean (0/1) expected: \(text)")
        }
        return parsed.value == 1
    }

    /// A floating-point number as `strtof` reads it (`nan` and `inf` included):
    /// `Float expected: X`.
    package static func float(_ text: String) throws(MPDError) -> Float {
        guard let value = CNumber.strtof(text) else { throw MPDError(.argument, "Float expected: \(text)") }
        return value
    }

    /// A time in seconds that must not be negative: `Negative value not allowed: X`.
    package static func songTime(_ text: String) throws(MPDError) -> Double {
        let value = try float(text)
        guard !(value < 0) else { throw MPDError(.argument, "Negative value not allowed: \(text)") }
        return Double(value)
    }

    /// A position or a range: `N` (just N), `N:M` (half-open), `N:` (open-ended), `-1` (all).
    ///
    /// Messages: `Integer or range expected: X`, `Number is negative: X`,
    /// `Number too large: X`, `Malformed range: X`.
    package static func range(_ text: String) throws(MPDError) -> RangeArgument {
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

/// `strtof` stays with the argument parsers, its only user, because it calls glibc and
/// MusicModel, where the integer conversions live, imports nothing.
extension CNumber {
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
}
