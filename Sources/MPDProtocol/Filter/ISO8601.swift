import MusicModel

/// The time stamps of `modified-since` and `added-since`: MPD's `ParseTimeStamp`
/// (src/song/Filter.cxx) over `ParseISO8601` (src/time/ISO8601.cxx).
///
/// MPD reads ISO 8601 with glibc's `strptime` and `timegm`, so what it accepts is defined by
/// their quirks rather than by the standard: every number may be preceded by blanks, fields
/// may have fewer digits than usual (`2024-1-5`), a field stops taking digits once another
/// would exceed its maximum (`T1260` is 12:06 followed by `0`), seconds go up to 61, and an
/// impossible day such as February 31 rolls over into the next month. This is a pure-Swift
/// model of exactly those rules, checked against glibc.
enum FilterTimestamp {
    /// A time stamp as UNIX seconds: ISO 8601 when that parses, else an integral UNIX time
    /// (`strtoull`, so blanks, a sign and wrap-around are accepted); when both fail, the
    /// ISO 8601 error, as MPD reports it.
    static func parse(_ text: String) throws(MPDError) -> Int64 {
        let bytes = FilterScanner(text).bytes
        do throws(MPDError) {
            return try ISO8601.parse(bytes)
        } catch {
            if let number = CNumber.strtoul(bytes, from: 0), number.end == bytes.count {
                return Int64(bitPattern: number.value)
            }
            throw error
        }
    }
}

/// MPD's relaxed ISO 8601 parser: `YYYY-MM` (the month's start), `YYYY-MM-DD` or `YYYYMMDD`,
/// optionally `T` and a time of day (`HH`, `HH:MM`, `HH:MM:SS`, `HHMM`, `HHMMSS`), optionally
/// `Z` or an offset (`+HH`, `+HHMM`, `+HH:MM`, or with `-`). Without an offset the time is UTC.
enum ISO8601 {
    /// The UNIX time `bytes` denote, or MPD's message for why they do not.
    static func parse(_ bytes: [UInt8]) throws(MPDError) -> Int64 {
        var time = BrokenDownTime()
        // A bare month is tried first and must span the whole text, so that `2024-01` is not
        // read as a malformed `YYYY-MM-DD`.
        if scan(bytes, from: 0, [.year, .literal(UInt8(ascii: "-")), .month], into: &time) == bytes.count {
            time.day = 1
            return time.unixTime
        }

        let dashed: [Field] = [.year, .literal(UInt8(ascii: "-")), .month, .literal(UInt8(ascii: "-")), .day]
        guard
            var index = scan(bytes, from: 0, dashed, into: &time)
                ?? scan(bytes, from: 0, [.year, .month, .day], into: &time)
        else { throw MPDError(.argument, "Failed to parse date") }

        if byte(bytes, index) == UInt8(ascii: "T") {
            guard let end = scanTimeOfDay(bytes, from: index + 1, into: &time) else {
                throw MPDError(.argument, "Failed to parse time of day")
            }
            index = end
        }

        var unixTime = time.unixTime
        switch byte(bytes, index) {
        case UInt8(ascii: "Z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            unixTime -= try zoneOffset(bytes, &index)
        default:
            break
        }
        guard index >= bytes.count else { throw MPDError(.argument, "Garbage at end of time stamp") }
        return unixTime
    }

    /// `struct tm` as far as `timegm` reads it, zero-initialised as MPD's `tm{}`.
    struct BrokenDownTime {
        var year = 1900
        var month = 1
        var day = 0
        var hour = 0
        var minute = 0
        var second = 0

        /// `timegm`: out-of-range days and seconds carry into the following fields.
        var unixTime: Int64 {
            let days = daysFromCivil(year: Int64(year), month: Int64(month)) + Int64(day) - 1
            return days * 86_400 + Int64(hour) * 3_600 + Int64(minute) * 60 + Int64(second)
        }
    }

    /// One `strptime` conversion, or a byte that must match literally.
    enum Field {
        /// `%Y`, `%m`, `%d`, `%H`, `%M`, `%S`.
        case year, month, day, hour, minute, second
        /// A byte that must come next.
        case literal(UInt8)
    }

    /// `strptime(s, format, &tm)`: the index after the match, or `nil` when it fails. Fields
    /// read before a failure stay written, as with the C call.
    static func scan(_ bytes: [UInt8], from start: Int, _ format: [Field], into time: inout BrokenDownTime) -> Int? {
        var index = start
        for field in format {
            switch field {
            case .literal(let expected):
                guard byte(bytes, index) == expected else { return nil }
                index += 1
            case .year:
                guard let value = number(bytes, &index, 0...9999, width: 4) else { return nil }
                time.year = value
            case .month:
                guard let value = number(bytes, &index, 1...12, width: 2) else { return nil }
                time.month = value
            case .day:
                guard let value = number(bytes, &index, 1...31, width: 2) else { return nil }
                time.day = value
            case .hour:
                guard let value = number(bytes, &index, 0...23, width: 2) else { return nil }
                time.hour = value
            case .minute:
                guard let value = number(bytes, &index, 0...59, width: 2) else { return nil }
                time.minute = value
            case .second:
                guard let value = number(bytes, &index, 0...61, width: 2) else { return nil }
                time.second = value
            }
        }
        return index
    }

    /// glibc's `get_number`: blanks, then at least one digit; further digits are taken while
    /// `width` allows and the value times ten stays within `range`.
    private static func number(_ bytes: [UInt8], _ index: inout Int, _ range: ClosedRange<Int>, width: Int) -> Int? {
        var position = index
        while ASCII.isSpace(byte(bytes, position)) { position += 1 }
        guard ASCII.isDigit(byte(bytes, position)) else { return nil }
        var value = 0
        var remaining = width
        repeat {
            value = value * 10 + Int(bytes[position] - 0x30)
            position += 1
            remaining -= 1
        } while remaining > 0 && value * 10 <= range.upperBound && ASCII.isDigit(byte(bytes, position))
        guard range.contains(value) else { return nil }
        index = position
        return value
    }

    /// MPD's `ParseTimeOfDay`: the index after the time, or `nil` when it is malformed. With
    /// a `:` after the hour the minute is required; without separators minute and second are
    /// each optional.
    private static func scanTimeOfDay(_ bytes: [UInt8], from start: Int, into time: inout BrokenDownTime) -> Int? {
        guard var index = scan(bytes, from: start, [.hour], into: &time) else { return nil }
        if byte(bytes, index) == UInt8(ascii: ":") {
            guard let afterMinute = scan(bytes, from: index + 1, [.minute], into: &time) else { return nil }
            index = afterMinute
            guard byte(bytes, index) == UInt8(ascii: ":") else { return index }
            return scan(bytes, from: index + 1, [.second], into: &time)
        }
        guard let afterMinute = scan(bytes, from: index, [.minute], into: &time) else { return index }
        return scan(bytes, from: afterMinute, [.second], into: &time) ?? afterMinute
    }

    /// MPD's `ParseTimeZoneOffset` at the sign: the offset east of UTC in seconds. The digits
    /// are read with `strtoul` and narrowed to 32 bits, as MPD does.
    private static func zoneOffset(_ bytes: [UInt8], _ index: inout Int) throws(MPDError) -> Int64 {
        let negative = byte(bytes, index) == UInt8(ascii: "-")
        index += 1
        let malformed = MPDError(.argument, "Failed to parse time zone offset")
        guard let first = CNumber.strtoul(bytes, from: index) else { throw malformed }
        let hours: UInt32
        var minutes: UInt32 = 0
        if first.end == index + 4 {
            hours = UInt32(truncatingIfNeeded: first.value / 100)
            minutes = UInt32(truncatingIfNeeded: first.value % 100)
            index = first.end
        } else if first.end == index + 2 {
            hours = UInt32(truncatingIfNeeded: first.value)
            index = first.end
            if byte(bytes, index) == UInt8(ascii: ":") {
                index += 1
                guard let second = CNumber.strtoul(bytes, from: index), second.end == index + 2 else { throw malformed }
                minutes = UInt32(truncatingIfNeeded: second.value)
                index = second.end
            }
        } else {
            throw malformed
        }
        guard hours <= 13 else { throw MPDError(.argument, "Time offset hours out of range") }
        guard minutes < 60 else { throw MPDError(.argument, "Time offset minutes out of range") }
        let offset = Int64(hours) * 3_600 + Int64(minutes) * 60
        return negative ? -offset : offset
    }

    /// The byte at `index`, or 0 past the end (the C string's terminator).
    private static func byte(_ bytes: [UInt8], _ index: Int) -> UInt8 {
        index < bytes.count ? bytes[index] : 0
    }

    /// Days from 1970-01-01 to the first of `month` (1...12) in the proleptic Gregorian
    /// `year` (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int64, month: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
