import Foundation
import GRDB
import Synchronization

/// The SQL functions filters need beyond SQLite's own, registered on every connection.
enum SQLFunctions {
    /// Registers the functions on `db`.
    static func register(in db: Database) {
        db.add(function: fold)
        db.add(function: regex)
        db.add(function: audioFormatMatches)
        RowVisitor.register(in: db)
    }

    /// `mpd_fold(TEXT)`: the case-folded text, for URIs (tag values are stored folded).
    private static let fold = DatabaseFunction("mpd_fold", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0]).map(TextFolding.fold)
    }

    /// `mpd_regex(PATTERN, TEXT, CASELESS)`: whether PCRE-style `PATTERN` is found anywhere in
    /// `TEXT` (MPD does not anchor it; `.` matches newlines).
    private static let regex = DatabaseFunction("mpd_regex", argumentCount: 3, pure: true) { values in
        guard let pattern = String.fromDatabaseValue(values[0]),
            let text = String.fromDatabaseValue(values[1])
        else { return false }
        let caseless = Bool.fromDatabaseValue(values[2]) ?? false
        let expression = try RegexCache.shared.expression(pattern, caseless: caseless)
        let range = NSRange(text.startIndex..., in: text)
        return expression.firstMatch(in: text, range: range) != nil
    }

    /// `mpd_audio_format_matches(FORMAT, RATE, BITS, CHANNELS, MASK)`: MPD's `AudioFormat`
    /// filter. An exact match needs every field equal; a mask match skips the `NULL` (`*`)
    /// fields. A song with no known format never matches.
    private static let audioFormatMatches = DatabaseFunction(
        "mpd_audio_format_matches", argumentCount: 5, pure: true
    ) { values in
        guard let format = String.fromDatabaseValue(values[0]) else { return false }
        let fields = format.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 3 else { return false }
        let isMask = Bool.fromDatabaseValue(values[4]) ?? false
        let wanted: [String?] = [
            Int64.fromDatabaseValue(values[1]).map(String.init),
            String.fromDatabaseValue(values[2]),
            Int64.fromDatabaseValue(values[3]).map(String.init),
        ]
        for (have, want) in zip(fields, wanted) {
            guard let want else {
                if isMask { continue }
                return false
            }
            if have != want { return false }
        }
        return true
    }
}

/// Compiled regular expressions, so that a filter compiles its pattern once, not per row.
final class RegexCache: Sendable {
    /// The process-wide cache.
    static let shared = RegexCache()

    private struct Key: Hashable {
        let pattern: String
        let caseless: Bool
    }

    private let cache = Mutex<[Key: NSRegularExpression]>([:])

    /// The compiled pattern.
    /// - Throws: when the pattern is not a valid regular expression.
    func expression(_ pattern: String, caseless: Bool) throws -> NSRegularExpression {
        let key = Key(pattern: pattern, caseless: caseless)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        var options: NSRegularExpression.Options = [.dotMatchesLineSeparators]
        if caseless { options.insert(.caseInsensitive) }
        let compiled = try NSRegularExpression(pattern: pattern, options: options)
        cache.withLock { cache in
            // A client sending endless distinct patterns must not grow this without bound.
            if cache.count > 256 { cache.removeAll() }
            cache[key] = compiled
        }
        return compiled
    }
}
