/// Which terms a filter expression may use.
///
/// The protocol's commands read MPD 0.24's filters and nothing more, so that `find` answers
/// what MPD answers (`Unknown filter type: sticker`). A smart playlist's rule is Tonearm's own
/// text and also reads what a rule needs and MPD's filters lack.
package enum FilterDialect: Sendable, Equatable {
    /// MPD 0.24's filter expressions.
    case mpd
    /// A smart playlist's rule: MPD's expressions, and
    /// - `(sticker:NAME OP VALUE)`, a song sticker compared as an integer (`==`, `!=`, `<`,
    ///   `<=`, `>`, `>=`); a song without it reads as 0;
    /// - relative times (`-30d`) in `modified-since`, `added-since` and sticker operands,
    ///   counted back from `now` (UNIX seconds).
    case smartPlaylist(now: Int64)
}

/// A time counted back from now: `-` and a whole number of seconds (`s`), hours (`h`), days
/// (`d`) or weeks (`w`), such as `-30d`. Months and years are left out: their lengths vary.
enum RelativeTime {
    /// The seconds in each unit.
    private static let units: [UInt8: Int64] = [
        UInt8(ascii: "s"): 1, UInt8(ascii: "h"): 3600, UInt8(ascii: "d"): 86_400, UInt8(ascii: "w"): 604_800,
    ]

    /// The UNIX time `text` names, counted back from `now`; `nil` when it is not a relative time.
    static func resolve(_ text: String, now: Int64) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 3, bytes.first == UInt8(ascii: "-"), let unit = units[bytes[bytes.count - 1]] else {
            return nil
        }
        let digits = bytes[1..<(bytes.count - 1)]
        guard digits.allSatisfy(ASCII.isDigit), let count = Int64(String(decoding: digits, as: UTF8.self)) else {
            return nil
        }
        let (seconds, overflow) = count.multipliedReportingOverflow(by: unit)
        guard !overflow else { return nil }
        return now.subtractingReportingOverflow(seconds).overflow ? nil : now - seconds
    }
}

/// The names a rule may give a sticker: what myMPD, Cantata and the play statistics use
/// (`playCount`, `lastPlayed`, `rating`, `like`), written without quotes.
enum StickerName {
    /// An ASCII letter or digit, `_`, `-` or `.`.
    static func isNameByte(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || ASCII.isDigit(byte)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// Whether `text` is a whole sticker name.
    static func isValid(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isNameByte)
    }
}
