import Settings

/// The plugin keys of one block, read with MPD's rules for values.
struct OutputSettings {
    let settings: [String: String]

    init(_ config: AudioOutputConfiguration) { settings = config.settings }

    subscript(key: String) -> String? { settings[key] }

    /// `yes`/`true`/`1` or `no`/`false`/`0`, or `defaultValue` when the key is absent.
    func bool(_ key: String, default defaultValue: Bool) throws(OutputError) -> Bool {
        guard let value = settings[key] else { return defaultValue }
        switch value.lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: throw OutputError("\(key): \"\(value)\" is not a boolean (yes or no)")
        }
    }

    /// A whole number within `range`, or `defaultValue` when the key is absent.
    func integer(_ key: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(OutputError) -> Int {
        guard let value = settings[key] else { return defaultValue }
        guard let number = Int(value), range.contains(number) else {
            throw OutputError("\(key): \"\(value)\" is not a number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}

/// An output's `format` option: the fields it forces on whatever the source plays, `*` keeping
/// the source's value, as MPD's `AudioFormat::ApplyMask` does.
struct ForcedFormat {
    let text: String

    /// Checks `text` now, so that a bad value is a configuration error rather than a failure
    /// at the first play; nil text means no forced format.
    init?(_ text: String?) throws(OutputError) {
        guard let text else { return nil }
        guard PCMFormat(mpdFormat: text, source: .cd) != nil else {
            throw OutputError("Failed to parse audio format \"\(text)\"")
        }
        self.text = text
    }

    /// The format to open for `source`.
    func apply(to source: PCMFormat) -> PCMFormat {
        PCMFormat(mpdFormat: text, source: source) ?? source
    }
}

extension Optional where Wrapped == ForcedFormat {
    /// The format to open for `source`: forced fields replaced, the others kept.
    func apply(to source: PCMFormat) -> PCMFormat {
        self?.apply(to: source) ?? source
    }
}
