import Foundation

/// Conversions of option values, each throwing an error that names the line.
extension ConfigParameter {
    /// `yes`/`true`/`1` or `no`/`false`/`0`, any case.
    func boolean() throws(ConfigurationError) -> Bool {
        switch value.lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: throw ConfigurationError(at: origin, "\(name): \"\(value)\" is not a boolean (yes or no)")
        }
    }

    /// A whole number within `range`.
    func integer(in range: ClosedRange<Int>) throws(ConfigurationError) -> Int {
        guard let number = Int(value), range.contains(number) else {
            let upper = range.upperBound == Int.max ? "" : " to \(range.upperBound)"
            throw ConfigurationError(
                at: origin, "\(name): \"\(value)\" is not a number from \(range.lowerBound)\(upper)")
        }
        return number
    }

    /// A size in KiB, as MPD's size options are given, converted to bytes. A `k`, `M` or `G`
    /// suffix gives the size in those units instead.
    func kibibytes() throws(ConfigurationError) -> Int {
        let units: [Character: Int] = ["k": 1, "K": 1, "M": 1024, "G": 1024 * 1024]
        var digits = Substring(value)
        var factor = 1
        if let last = digits.last, let unit = units[last] {
            factor = unit
            digits = digits.dropLast()
        }
        guard let number = Int(digits), number > 0, number <= Int.max / 1024 / factor else {
            throw ConfigurationError(at: origin, "\(name): \"\(value)\" is not a positive size in KiB")
        }
        return number * factor * 1024
    }

    /// A gain in dB from −15 to 15, as MPD limits the replay gain preamps.
    func decibels() throws(ConfigurationError) -> Double {
        guard let number = Double(value), number.isFinite, (-15...15).contains(number) else {
            throw ConfigurationError(at: origin, "\(name): \"\(value)\" is not a gain from -15 to 15 dB")
        }
        return number
    }

    /// One of the raw values of `T`.
    func choice<T: RawRepresentable & CaseIterable>(of type: T.Type) throws(ConfigurationError) -> T
    where T.RawValue == String {
        guard let result = T(rawValue: value) else {
            let names = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError(at: origin, "\(name): \"\(value)\" is not one of \(names)")
        }
        return result
    }

    /// A permission list such as `read,add,control`.
    func permissions() throws(ConfigurationError) -> Permissions {
        try Self.permissions(value, at: origin, option: name)
    }

    static func permissions(_ list: String, at origin: ConfigOrigin, option: String) throws(ConfigurationError)
        -> Permissions
    {
        do {
            return try Permissions(parsing: list)
        } catch {
            throw ConfigurationError(at: origin, "\(option): \(error)")
        }
    }

    /// A comma-separated list with blanks trimmed and empty items dropped.
    func list() -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
