import Foundation
import GRDB
import MusicModel

/// A piece of SQL with its arguments.
struct SQLFragment: Sendable {
    /// The SQL text, with `?` placeholders.
    var sql: String
    /// The values of the placeholders, in order.
    var arguments: [DatabaseValue]

    init(_ sql: String, _ arguments: [(any DatabaseValueConvertible)?] = []) {
        self.sql = sql
        self.arguments = arguments.map { $0?.databaseValue ?? .null }
    }

    init(_ sql: String, values: [DatabaseValue]) {
        self.sql = sql
        arguments = values
    }

    /// A condition every row meets.
    static var alwaysTrue: SQLFragment { SQLFragment("1") }
    /// A condition no row meets.
    static var alwaysFalse: SQLFragment { SQLFragment("0") }
}

/// Compiles a ``FilterExpression`` into a condition on the table `song` aliased `s`.
///
/// Positive tag matches are written as `s.id IN (SELECT song FROM songTag …)` so that SQLite
/// drives the query from the tag index (or the trigram index for substring searches) instead
/// of testing every song; MPD's fallback and empty-value rules add a per-song test only where
/// they can change the result.
enum FilterSQL {
    /// The condition for `expression`.
    static func condition(_ expression: FilterExpression) -> SQLFragment {
        condition(expression, stickers: SongStickerValues())
    }

    /// The condition for `expression`.
    /// - Parameter stickers: the values of the stickers a smart playlist's rule compares
    ///   (``FilterExpression/sticker(_:_:)``); a sticker missing from it reads as 0 on every song.
    /// - Parameter alphabets: what the tags outside the trigram index hold, which spares an
    ///   `any` substring search the rows of those that cannot match; without it (or when
    ///   ``needsAlphabets(_:)`` says no) every such tag is read.
    static func condition(
        _ expression: FilterExpression, stickers: SongStickerValues, alphabets: TagAlphabets? = nil
    ) -> SQLFragment {
        switch expression {
        case .tag(let tag, let predicate):
            return negate(tagCondition(tag, predicate), if: predicate.negated)
        case .anyTag(let predicate) where usesTrigramIndex(predicate, tag: nil):
            // The indexed tags through the trigram index's row ids, the few others (numbers,
            // dates, identifiers) that may hold the needle through their rows.
            let indexed = SQLFragment(
                "s.id IN (SELECT \(TagRowID.songSQL("rowid")) FROM songTagText WHERE songTagText MATCH ?)",
                [trigramPhrase(predicate)])
            let others =
                alphabets?.tags(mayContain: TextFolding.fold(predicate.value)) ?? Schema.unindexedTags
            guard !others.isEmpty else { return negate(indexed, if: predicate.negated) }
            let rest = stringMatch(predicate, raw: "t.value", folded: "t.folded")
            let tags = others.map { String($0.rawValue) }.joined(separator: ",")
            return negate(
                SQLFragment(
                    "(\(indexed.sql) OR s.id IN (SELECT t.song FROM songTag t WHERE t.tag IN (\(tags)) AND \(rest.sql)))",
                    values: indexed.arguments + rest.arguments
                ),
                if: predicate.negated
            )
        case .anyTag(let predicate):
            let match = stringMatch(predicate, raw: "t.value", folded: "t.folded")
            return negate(
                SQLFragment("s.id IN (SELECT t.song FROM songTag t WHERE \(match.sql))", values: match.arguments),
                if: predicate.negated
            )
        case .uri(let predicate):
            return negate(stringMatch(predicate, raw: "s.uri", folded: "mpd_fold(s.uri)"), if: predicate.negated)
        case .base(let directory):
            if directory.isEmpty { return .alwaysTrue }
            return SQLFragment(
                "(s.uri = ? OR (s.uri >= ? AND s.uri < ?))",
                [directory, directory + "/", directory + "0"]
            )
        case .modifiedSince(let time):
            return timeRange("mtime", since: time)
        case .addedSince(let time):
            return timeRange("added", since: time)
        case .audioFormat(let pattern):
            return SQLFragment(
                "mpd_audio_format_matches(s.format, ?, ?, ?, ?)",
                values: [
                    pattern.sampleRate.map { Int64($0) }.databaseValue, pattern.bits.databaseValue,
                    pattern.channels.map { Int64($0) }.databaseValue, pattern.isMask.databaseValue,
                ]
            )
        case .priorityAtLeast(let priority):
            // Songs in the database have priority 0.
            return priority == 0 ? .alwaysTrue : .alwaysFalse
        case .sticker(let name, let predicate):
            return stickerCondition(stickers.values(of: name), predicate)
        case .not(let inner):
            let compiled = condition(inner, stickers: stickers, alphabets: alphabets)
            return SQLFragment("NOT (\(compiled.sql))", values: compiled.arguments)
        case .and(let operands):
            guard !operands.isEmpty else { return .alwaysTrue }
            let perSong = checksPerSong(operands)
            let compiled = operands.map { operand in
                if perSong, case .tag(let tag, let predicate) = operand, isNumberTerm(operand) {
                    return negate(perSongMatch(tag, predicate), if: predicate.negated)
                }
                return condition(operand, stickers: stickers, alphabets: alphabets)
            }
            var result = SQLFragment(compiled.map { "(\($0.sql))" }.joined(separator: " AND "))
            result.arguments = compiled.flatMap(\.arguments)
            return result
        }
    }

    /// Whether `expression` has an `any` substring search that ``TagAlphabets`` may narrow.
    static func needsAlphabets(_ expression: FilterExpression) -> Bool {
        switch expression {
        case .anyTag(let predicate): return usesTrigramIndex(predicate, tag: nil)
        case .not(let inner): return needsAlphabets(inner)
        case .and(let operands): return operands.contains(where: needsAlphabets)
        default: return false
        }
    }

    /// Whether the condition for `expression` may read every song or every value of a tag:
    /// unless an index drives it (a positive exact match or trigram substring of a tag and its
    /// fallbacks, an exact URI, a `base`, or an operand of an `AND` that is one of these), or
    /// when one of its tag subqueries is itself such a read (SQLite builds each `IN (SELECT …)`
    /// list whole: a regular expression over every title, even next to an exact artist).
    /// `modified-since` and `added-since` list songs from an index range, which for a time
    /// long past is every song: they count as such a read.
    static func mayScan(_ expression: FilterExpression) -> Bool {
        !drives(expression) || readsEveryValue(expression)
    }

    /// Whether an index finds the songs `expression` selects, without a test per song.
    private static func drives(_ expression: FilterExpression) -> Bool {
        switch expression {
        case .tag(let tag, let predicate):
            // A tag with fallbacks (AlbumArtist → Artist) is a union of index lookups, one per tag.
            return !predicate.negated && isIndexedWithFallbacks(predicate, tag: tag)
        case .uri(let predicate):
            return !predicate.negated && predicate.operator == .equals && !predicate.foldCase
        case .base(let directory):
            return !directory.isEmpty
        case .and(let operands):
            return operands.contains(where: drives)
        case .anyTag, .modifiedSince, .addedSince, .audioFormat, .priorityAtLeast, .sticker, .not:
            return false
        }
    }

    /// Whether a subquery of `expression` may list every song or read every value of a tag,
    /// negated or not.
    private static func readsEveryValue(_ expression: FilterExpression) -> Bool {
        switch expression {
        case .modifiedSince, .addedSince:
            // The list of songs since a time long past is every song.
            return true
        case .sticker:
            // A list of URIs from the sticker database, or every song but those.
            return true
        case .tag(let tag, let predicate):
            // An empty `==` tests each song for the tag instead of listing values.
            let missing = predicate.operator == .equals && predicate.value.isEmpty
            return !missing && !isIndexedWithFallbacks(predicate, tag: tag)
        case .anyTag:
            return true
        case .not(let inner):
            return readsEveryValue(inner)
        case .and(let operands):
            // A number or date term checked per song reads only the candidates' rows.
            let perSong = checksPerSong(operands)
            return operands.contains { !(perSong && isNumberTerm($0)) && readsEveryValue($0) }
        case .uri, .base, .audioFormat, .priorityAtLeast:
            return false
        }
    }

    /// The tags whose values are numbers or dates: few values, each shared by many songs
    /// (`track "1"` is one song of every album, a twelfth of a library), and no fallbacks.
    private static let numberTags: Set<TagType> = [.track, .disc, .movementNumber, .date, .originalDate]

    /// Whether `expression` compares a tag of ``numberTags`` with a non-empty operand (negated or
    /// not): a term that ``checksPerSong(_:)`` may test on each candidate song.
    private static func isNumberTerm(_ expression: FilterExpression) -> Bool {
        guard case .tag(let tag, let predicate) = expression else { return false }
        return numberTags.contains(tag) && !predicate.value.isEmpty
    }

    /// Whether the number terms (``isNumberTerm(_:)``) among the operands of an `AND` are tested
    /// per song (``perSongMatch(_:_:)``): when another operand drives the query from an index.
    /// As lists (`s.id IN (SELECT …)`), SQLite built each one whole, every song with `track
    /// "1"`, to probe it for the dozen songs of one album (MPDroid's `find albumartist X album A
    /// track 1`: 13 ms instead of 0.4 at 100,000 songs), or let it drive the query instead of an
    /// album artist's union. Alone with no other driver, a number term stays the list it drives from.
    private static func checksPerSong(_ operands: [FilterExpression]) -> Bool {
        operands.contains { !isNumberTerm($0) && drives($0) }
    }

    /// ``isIndexed(_:tag:)`` for `tag` and every tag of its fallback chain, which the union
    /// (``fallbackUnion(_:_:_:_:)``) looks up one by one.
    private static func isIndexedWithFallbacks(_ predicate: StringPredicate, tag: TagType) -> Bool {
        ([tag] + TagFallback.chain(for: tag)).allSatisfy { isIndexed(predicate, tag: $0) }
    }

    /// Whether the values matching `predicate` (negation aside) are found through an index.
    private static func isIndexed(_ predicate: StringPredicate, tag: TagType) -> Bool {
        (predicate.operator == .equals && !predicate.value.isEmpty) || usesTrigramIndex(predicate, tag: tag)
    }

    /// The songs whose `column` (a time with an index) is at `time` or later, as a list from the
    /// index: written as `s.mtime >= ?`, SQLite preferred walking every song in output order to
    /// sorting the few a recent time selects ("recently added": 21 ms instead of 0.1 ms at
    /// 100,000 songs). A time long past lists every song, half again the time of that walk.
    private static func timeRange(_ column: String, since time: Int64) -> SQLFragment {
        SQLFragment("s.id IN (SELECT id FROM song WHERE \(column) >= ?)", [time])
    }

    /// A sticker comparison, from the values read beforehand (the sticker database is a file
    /// of its own, MPD's, which the music database's connections do not attach). When a missing
    /// sticker (0) matches, the songs are all but those whose value does not; otherwise only
    /// those whose value does. Either list goes in as one JSON argument, however long.
    private static func stickerCondition(_ values: [String: Int64], _ predicate: StickerValuePredicate) -> SQLFragment {
        let missingMatches = predicate.holds(0)
        let listed = values.compactMap { uri, value in predicate.holds(value) != missingMatches ? uri : nil }
        guard !listed.isEmpty else { return missingMatches ? .alwaysTrue : .alwaysFalse }
        let list = String(decoding: (try? JSONEncoder().encode(listed)) ?? Data("[]".utf8), as: UTF8.self)
        return SQLFragment("s.uri \(missingMatches ? "NOT IN" : "IN") (SELECT value FROM json_each(?))", [list])
    }

    private static func negate(_ fragment: SQLFragment, if negated: Bool) -> SQLFragment {
        negated ? SQLFragment("NOT (\(fragment.sql))", values: fragment.arguments) : fragment
    }

    /// MPD's `TagSongFilter::Match` without negation: a value of the tag matches; or the song
    /// lacks the tag and the first fallback tag it has matches; or it has none of them and the
    /// operand is empty.
    private static func tagCondition(_ tag: TagType, _ predicate: StringPredicate) -> SQLFragment {
        let own = tagMatch(tag, predicate)
        let fallbacks = TagFallback.chain(for: tag)
        if fallbacks.isEmpty && !predicate.value.isEmpty { return own }
        if !predicate.value.isEmpty { return fallbackUnion(own, tag, fallbacks, predicate) }
        var sql = "\(own.sql) OR (NOT \(hasTag) AND "
        var arguments = own.arguments + [Int64(tag.rawValue).databaseValue]
        if fallbacks.isEmpty {
            sql += predicate.value.isEmpty ? "1)" : "0)"
            return SQLFragment("(\(sql))", values: arguments)
        }
        sql += "CASE"
        for fallback in fallbacks {
            let match = tagMatch(fallback, predicate)
            sql += " WHEN \(hasTag) THEN \(match.sql)"
            arguments.append(Int64(fallback.rawValue).databaseValue)
            arguments += match.arguments
        }
        sql += predicate.value.isEmpty ? " ELSE 1 END)" : " ELSE 0 END)"
        return SQLFragment("(\(sql))", values: arguments)
    }

    /// ``tagCondition(_:_:)`` for a non-empty operand, as a union SQLite drives from the indexes
    /// (`list album albumartist "X"`, the album view of most clients): a value of the tag matches,
    /// or a value of fallback *k* matches and the song has neither the tag nor the fallbacks
    /// before *k*. That is the first fallback the song has deciding, since a match implies the
    /// fallback is there. Written as one `CASE` over the fallbacks, the same test made SQLite
    /// try it on every song.
    private static func fallbackUnion(
        _ own: SQLFragment, _ tag: TagType, _ fallbacks: [TagType], _ predicate: StringPredicate
    ) -> SQLFragment {
        var terms = [own.sql]
        var arguments = own.arguments
        var absent: [TagType] = [tag]
        for fallback in fallbacks {
            let match = tagMatch(fallback, predicate)
            terms.append("(" + ([match.sql] + absent.map { _ in "NOT \(hasTag)" }).joined(separator: " AND ") + ")")
            arguments += match.arguments + absent.map { Int64($0.rawValue).databaseValue }
            absent.append(fallback)
        }
        return SQLFragment("(" + terms.joined(separator: " OR ") + ")", values: arguments)
    }

    /// `EXISTS` a value of the tag bound next, for the song `s`.
    private static let hasTag = "EXISTS (SELECT 1 FROM songTag x WHERE x.song = s.id AND x.tag = ?)"

    private static func tagMatch(_ tag: TagType, _ predicate: StringPredicate) -> SQLFragment {
        if usesTrigramIndex(predicate, tag: tag) {
            // The hits' row ids name their songs and tag types (TagRowID): no `songTag` row
            // is read, and the case-sensitive index over folded text is the whole test.
            return SQLFragment(
                "s.id IN (SELECT \(TagRowID.songSQL("rowid")) FROM songTagText WHERE songTagText MATCH ? "
                    + "AND \(TagRowID.tagSQL("rowid")) = ?)",
                values: [trigramPhrase(predicate).databaseValue, Int64(tag.rawValue).databaseValue]
            )
        }
        let match = stringMatch(predicate, raw: "t.value", folded: "t.folded")
        return SQLFragment(
            "s.id IN (SELECT t.song FROM songTag t WHERE t.tag = ? AND \(match.sql))",
            values: [Int64(tag.rawValue).databaseValue] + match.arguments
        )
    }

    /// A match of `predicate` (negation aside) among the values of `tag` of the song `s` alone,
    /// for a tag without fallbacks: a range of the song's ``TagRowID``s, one seek into `songTag`
    /// by row id. Written as `t.song = s.id AND t.tag = ?`, SQLite chose the `(tag, value)` index
    /// and read every song with the value, for each song tested.
    private static func perSongMatch(_ tag: TagType, _ predicate: StringPredicate) -> SQLFragment {
        let match = stringMatch(predicate, raw: "t.value", folded: "t.folded")
        let first = TagRowID.make(song: 0, tag: tag.rawValue, index: 0)
        let end = TagRowID.make(song: 0, tag: tag.rawValue + 1, index: 0)
        let song = TagRowID.firstOfSongSQL("s.id")
        return SQLFragment(
            "EXISTS (SELECT 1 FROM songTag t WHERE t.id >= \(song) + ? AND t.id < \(song) + ? AND \(match.sql))",
            values: [first.databaseValue, end.databaseValue] + match.arguments
        )
    }

    /// The trigram index's query for the predicate's folded operand: one quoted phrase, which
    /// matches exactly the values containing it.
    private static func trigramPhrase(_ predicate: StringPredicate) -> String {
        "\"" + TextFolding.fold(predicate.value).replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Whether a match of `predicate` on `tag` (or on any tag, when `nil`) is looked up in the
    /// trigram index: a folded substring of three characters or more.
    static func usesTrigramIndex(_ predicate: StringPredicate, tag: TagType?) -> Bool {
        guard predicate.operator == .contains, predicate.foldCase,
            TextFolding.fold(predicate.value).unicodeScalars.count >= 3
        else { return false }
        return tag.map(Schema.fullTextTags.contains) ?? true
    }

    /// A comparison of a string column with the predicate's operand, ignoring negation.
    private static func stringMatch(_ predicate: StringPredicate, raw: String, folded: String) -> SQLFragment {
        let column = predicate.foldCase ? folded : raw
        let operand = predicate.foldCase ? TextFolding.fold(predicate.value) : predicate.value
        switch predicate.operator {
        case .equals:
            return SQLFragment("\(column) = ?", [operand])
        case .contains:
            return SQLFragment("instr(\(column), ?) > 0", [operand])
        case .startsWith:
            return SQLFragment("substr(\(column), 1, ?) = ?", [Int64(operand.unicodeScalars.count), operand])
        case .regex:
            return SQLFragment("mpd_regex(?, \(raw), ?)", [predicate.value, predicate.foldCase])
        }
    }
}
