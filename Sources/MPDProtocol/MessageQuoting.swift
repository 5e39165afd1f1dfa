extension String {
    /// The string in double quotes as MPD 0.24 puts a name into an error message: its
    /// messages format names with the `{fmt}` library's `{:?}`, which escapes `"` and `\`
    /// with a backslash, writes line feed, carriage return and tab as `\n`, `\r` and `\t`,
    /// and any other character that is not printable as `\xHH`, `\uHHHH` or `\UHHHHHHHH`
    /// (lower-case hex). So `no matches found: "(Artist == \"X\")"` stays one unambiguous line.
    ///
    /// "Not printable" follows `{fmt}`'s rule (control, format, private-use, unassigned and
    /// surrogate code points, line and paragraph separators, and every space but U+0020) by
    /// Unicode general category rather than by `{fmt}`'s own table, which may differ from it
    /// on characters assigned in a newer Unicode version.
    package var mpdQuoted: String {
        var out = "\""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"", "\\": out += "\\" + String(scalar)
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.isPrintableForMPD {
                    out.unicodeScalars.append(scalar)
                } else {
                    let (prefix, width) = scalar.value < 0x100 ? ("x", 2) : scalar.value < 0x10000 ? ("u", 4) : ("U", 8)
                    let hex = String(scalar.value, radix: 16)
                    out += "\\" + prefix + String(repeating: "0", count: width - hex.count) + hex
                }
            }
        }
        return out + "\""
    }
}

extension Unicode.Scalar {
    /// Whether `{fmt}`'s `{:?}` prints the character as it is (see ``Swift/String/mpdQuoted``).
    fileprivate var isPrintableForMPD: Bool {
        if value < 0x20 || value == 0x7f { return false }
        if value < 0x7f { return true }
        switch properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator,
            .spaceSeparator:
            return false
        default:
            return true
        }
    }
}
