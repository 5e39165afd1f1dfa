import Foundation

/// Numbers as MPD's status lines print them.
enum NumberFormat {
    /// The shortest form that reads back the same, as MPD 0.24's `{}` format: `0`, `-17`,
    /// `-17.5`.
    static func shortest(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    /// Seconds with three decimals, rounded (`%1.3f`).
    static func threeDecimals(_ value: Double) -> String { String(format: "%.3f", value) }
}
