package import MusicModel

#if canImport(Glibc)
    import Glibc
#endif

extension FilterExpression {
    /// The filter written out as MPD's `ToExpression()` writes it: what a `filter` sticker is
    /// stored under, so that equal filters spelled differently share their stickers. Values
    /// are double-quoted with `"`, `'` and `\` escaped; string comparisons name their case
    /// rule (`eq_ci`, `contains_cs`, …) except plain `==`/`!=`.
    package var mpdExpression: String {
        switch self {
        case .tag(let tag, let predicate):
            return "(\(tag.name) \(predicate.mpdOperator) \(Self.quoted(predicate.value)))"
        case .anyTag(let predicate):
            return "(any \(predicate.mpdOperator) \(Self.quoted(predicate.value)))"
        case .uri(let predicate):
            return "(file \(predicate.mpdOperator) \(Self.quoted(predicate.value)))"
        case .base(let directory):
            return "(base \(Self.quoted(directory)))"
        case .modifiedSince(let time):
            return "(modified-since \(Self.quoted(Self.iso8601(time))))"
        case .addedSince(let time):
            return "(added-since \(Self.quoted(Self.iso8601(time))))"
        case .audioFormat(let pattern):
            let text = [pattern.sampleRate.map(String.init), pattern.bits, pattern.channels.map(String.init)]
                .map { $0 ?? "*" }.joined(separator: ":")
            return "(AudioFormat \(pattern.isMask ? "=~" : "==") \(Self.quoted(text)))"
        case .priorityAtLeast(let priority):
            return "(prio >= \(priority))"
        case .sticker(let name, let predicate):
            // Not MPD's: a smart playlist's term, written as its rules spell it.
            return "(sticker:\(name) \(predicate.comparison.rawValue) \(predicate.operand))"
        case .not(let inner):
            return "(!\(inner.mpdExpression))"
        case .and(let operands):
            if operands.count == 1 { return operands[0].mpdExpression }
            return "(" + operands.map(\.mpdExpression).joined(separator: " AND ") + ")"
        }
    }

    /// MPD's `EscapeFilterString`, in double quotes.
    private static func quoted(_ value: String) -> String {
        var out = "\""
        for character in value {
            if character == "\"" || character == "'" || character == "\\" { out.append("\\") }
            out.append(character)
        }
        return out + "\""
    }

    /// A UNIX time as MPD's `FormatISO8601` prints it: `2024-01-31T12:00:00Z`.
    private static func iso8601(_ time: Int64) -> String {
        var seconds = time_t(time)
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return String(time) }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
            + "T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}

extension StringPredicate {
    /// The operator as MPD 0.24's `StringFilter::GetOperator` prints it.
    var mpdOperator: String {
        let not = negated ? "!" : ""
        let rule = foldCase ? "_ci" : "_cs"
        switch `operator` {
        case .regex: return negated ? "!~" : "=~"
        case .contains: return not + "contains" + rule
        case .startsWith: return not + "starts_with" + rule
        case .equals: return foldCase ? not + "eq_ci" : (negated ? "!=" : "==")
        }
    }
}
