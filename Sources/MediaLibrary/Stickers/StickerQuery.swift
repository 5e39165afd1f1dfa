/// What `sticker find` asks the sticker database for.
package struct StickerQuery: Sendable, Equatable {
    /// The sticker type (`song`, `playlist`, `filter` or a tag name as MPD spells it).
    package var type: String
    /// Only objects whose URI starts with this, byte for byte; `""` for all.
    package var uriPrefix: String
    /// The sticker name.
    package var name: String
    /// A condition on the value; `nil` for every sticker of that name.
    package var condition: StickerCondition?
    /// The order; `nil` for the order of the URIs.
    package var sort: StickerSort?

    /// Creates a query.
    package init(
        type: String, uriPrefix: String, name: String, condition: StickerCondition? = nil,
        sort: StickerSort? = nil
    ) {
        self.type = type
        self.uriPrefix = uriPrefix
        self.name = name
        self.condition = condition
        self.sort = sort
    }
}

/// A condition on a sticker's value: `OP VALUE` of `sticker find`.
package struct StickerCondition: Sendable, Equatable {
    /// The comparison.
    package var comparison: StickerComparison
    /// What the value is compared with.
    package var operand: String

    /// Creates a condition.
    package init(_ comparison: StickerComparison, _ operand: String) {
        self.comparison = comparison
        self.operand = operand
    }
}

/// The value conditions of `sticker find`: MPD 0.23's string comparisons and 0.24's integer
/// and substring ones.
package enum StickerComparison: String, Sendable, CaseIterable {
    /// `=`: the value equals the operand.
    case equals = "="
    /// `<`: the value sorts before the operand, byte by byte.
    case lessThan = "<"
    /// `>`: the value sorts after the operand.
    case greaterThan = ">"
    /// `eq`: both read as integers (SQLite's `CAST(… AS INTEGER)`, so `"07"` equals `7` and a
    /// word counts as 0) are equal.
    case equalsInteger = "eq"
    /// `lt`: the value as an integer is below the operand's.
    case lessThanInteger = "lt"
    /// `gt`: the value as an integer is above the operand's.
    case greaterThanInteger = "gt"
    /// `contains`: the operand occurs in the value (case-sensitive).
    case contains = "contains"
    /// `starts_with`: the value begins with the operand (case-sensitive).
    case startsWith = "starts_with"

    /// The SQL condition on `value`, with one `?` for the operand (two for `starts_with`).
    var sql: String {
        switch self {
        case .equals: "value = ?"
        case .lessThan: "value < ?"
        case .greaterThan: "value > ?"
        case .equalsInteger: "CAST(value AS INTEGER) = CAST(? AS INTEGER)"
        case .lessThanInteger: "CAST(value AS INTEGER) < CAST(? AS INTEGER)"
        case .greaterThanInteger: "CAST(value AS INTEGER) > CAST(? AS INTEGER)"
        case .contains: "instr(value, ?) > 0"
        case .startsWith: "substr(value, 1, length(?)) = ?"
        }
    }
}

/// The `sort` of `sticker find` (MPD 0.24): `uri`, `value` or `value_int`, `-` for descending.
package struct StickerSort: Sendable, Equatable {
    /// What is compared.
    package enum Key: String, Sendable, CaseIterable {
        /// The object's URI, bytewise.
        case uri
        /// The value, bytewise.
        case value
        /// The value read as an integer.
        case valueInteger = "value_int"

        var sql: String {
            switch self {
            case .uri: "uri"
            case .value: "value"
            case .valueInteger: "CAST(value AS INTEGER)"
            }
        }
    }

    /// What is compared.
    package var key: Key
    /// Largest first.
    package var descending: Bool

    /// Creates a sort order.
    package init(_ key: Key, descending: Bool = false) {
        self.key = key
        self.descending = descending
    }
}
