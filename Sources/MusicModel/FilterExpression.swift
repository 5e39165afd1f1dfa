/// A song filter: MPD's `SongFilter`, the parsed form of the `FILTER` argument of `find`,
/// `search`, `list`, `count` and their relatives.
///
/// Case folding is resolved at parse time: every string predicate carries whether it compares
/// folded, from the command's default (`find` exact, `search` folded) or its `_cs`/`_ci`
/// operator. Several filter arguments are AND-ed into one ``and(_:)``.
package indirect enum FilterExpression: Sendable, Equatable {
    /// A tag compared value by value, with MPD's fallbacks (`AlbumArtist` falls back to
    /// `Artist`, …): matches when any value matches.
    case tag(TagType, StringPredicate)
    /// Any tag value of any type (`any`), without fallbacks.
    case anyTag(StringPredicate)
    /// The song's URI relative to the music directory (`file`, `filename`).
    case uri(StringPredicate)
    /// The song is in this directory or below it (`base`); `""` is the root.
    case base(String)
    /// The file was modified at or after this UNIX time (`modified-since`).
    case modifiedSince(Int64)
    /// The song entered the database at or after this UNIX time (`added-since`).
    case addedSince(Int64)
    /// The song's audio format (`AudioFormat == '44100:16:2'`, or `=~` with `*` fields).
    case audioFormat(AudioFormatPattern)
    /// The queue priority is at least this (`prio >= N`); database songs have priority 0.
    case priorityAtLeast(UInt8)
    /// A song sticker read as an integer (`(sticker:playCount >= 5)`): a term of smart
    /// playlist rules only, not of MPD's filters. A song without the sticker reads as 0.
    case sticker(String, StickerValuePredicate)
    /// Negation (`(!(…))`).
    case not(FilterExpression)
    /// Conjunction: every operand matches (`((…) AND (…))`, and several filter arguments).
    case and([FilterExpression])
}

/// How a string (a tag value or a URI) is compared: MPD's `StringFilter`.
package struct StringPredicate: Sendable, Equatable {
    /// The comparison.
    package enum Operator: Sendable, Equatable {
        /// The whole value is equal (`==`, `eq_cs`, `eq_ci`).
        case equals
        /// The value contains the operand (`contains`, old-style `search`).
        case contains
        /// The value starts with the operand (`starts_with`).
        case startsWith
        /// The regular expression (PCRE syntax) is found anywhere in the value (`=~`).
        case regex
    }

    /// The comparison.
    package var `operator`: Operator
    /// `!=`, `!contains`, `!~`, …: the predicate holds when no value matches.
    package var negated: Bool
    /// The operand, unescaped. An empty operand with ``Operator/equals`` matches a missing tag.
    package var value: String
    /// Compare case-insensitively (MPD: NFKC case folding).
    package var foldCase: Bool

    /// Creates a predicate.
    package init(_ operator: Operator, _ value: String, negated: Bool = false, foldCase: Bool) {
        self.operator = `operator`
        self.value = value
        self.negated = negated
        self.foldCase = foldCase
    }
}

/// An audio format filter operand: `RATE:BITS:CHANNELS`, where a mask match (`=~`) allows `*`
/// in any field.
package struct AudioFormatPattern: Sendable, Equatable {
    /// The sample rate, or `nil` for `*`.
    package var sampleRate: UInt32?
    /// The sample format as MPD prints it (`8`, `16`, `24`, `32`, `f`, `dsd`), or `nil` for `*`.
    package var bits: String?
    /// The channel count, or `nil` for `*`.
    package var channels: UInt8?
    /// `=~`: fields given as `*` match anything. `==` compares the whole format.
    package var isMask: Bool

    /// Creates a pattern.
    package init(sampleRate: UInt32?, bits: String?, channels: UInt8?, isMask: Bool) {
        self.sampleRate = sampleRate
        self.bits = bits
        self.channels = channels
        self.isMask = isMask
    }
}

/// How a song sticker's value is compared in a smart playlist rule (`(sticker:rating >= 8)`).
///
/// The value is read as an integer as SQLite's `CAST(value AS INTEGER)` reads it, the rule of
/// `sticker find`'s `eq`/`lt`/`gt`: text that is no number counts as 0, and so does a missing
/// sticker, so that `(sticker:playCount == 0)` finds the songs never played.
package struct StickerValuePredicate: Sendable, Equatable {
    /// The comparison of the value (left) with the operand (right).
    package enum Comparison: String, Sendable, CaseIterable {
        /// `==`.
        case equal = "=="
        /// `!=`.
        case notEqual = "!="
        /// `<`.
        case less = "<"
        /// `<=`.
        case lessOrEqual = "<="
        /// `>`.
        case greater = ">"
        /// `>=`.
        case greaterOrEqual = ">="
    }

    /// The comparison.
    package var comparison: Comparison
    /// What the value is compared with.
    package var operand: Int64

    /// Creates a predicate.
    package init(_ comparison: Comparison, _ operand: Int64) {
        self.comparison = comparison
        self.operand = operand
    }

    /// Whether a song whose sticker reads as `value` matches.
    package func holds(_ value: Int64) -> Bool {
        switch comparison {
        case .equal: value == operand
        case .notEqual: value != operand
        case .less: value < operand
        case .lessOrEqual: value <= operand
        case .greater: value > operand
        case .greaterOrEqual: value >= operand
        }
    }
}
