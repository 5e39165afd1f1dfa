package import MusicModel

/// A smart playlist as its user wrote it: the text of a `NAME.smartpl` file in
/// `playlist_directory`, or the arguments of the `smartplaylist` command
/// (docs/smart-playlists.md).
///
/// The file is lines of `KEY: VALUE`; blank lines and lines starting with `#` are skipped:
///
/// ```
/// # Tonearm smart playlist
/// filter: (genre == "Jazz")
/// filter: (sticker:playCount >= 1)
/// sort: -sticker:playCount
/// limit: 50
/// ```
///
/// - `filter` (any number, all must match; none: every song): a filter expression as `search`
///   reads it (case-insensitive unless `_cs`), with sticker terms and relative times
///   (``FilterDialect/smartPlaylist(now:)``);
/// - `sort` (at most one): what `find … sort` takes, or `sticker:NAME`; `-` for descending;
/// - `limit` (at most one): the most songs, from 1.
///
/// The text is kept as written, not the parsed rule: a relative time such as `-30d` is
/// resolved each time the playlist is read (``rule(now:)``).
package struct SmartPlaylistDefinition: Sendable, Equatable {
    /// The filter expressions, as written; a song must match every one.
    package var filters: [String]
    /// The sort key as written (`-sticker:playCount`), if any.
    package var sort: String?
    /// The most songs, if limited.
    package var limit: Int?

    /// Creates a definition from its parts, unchecked (see ``validate()``).
    package init(filters: [String], sort: String? = nil, limit: Int? = nil) {
        self.filters = filters
        self.sort = sort
        self.limit = limit
    }

    /// Reads a `.smartpl` file's text.
    /// - Parameter check: what else is wrong with a filter, if anything (the library's check of
    ///   its regular expressions), so that the message names the filter's line too.
    /// - Throws: ``SmartPlaylistSyntaxError`` naming the first bad line and what is wrong with it.
    package init(
        fileText: String, check: (FilterExpression) -> String? = { _ in nil }
    ) throws(SmartPlaylistSyntaxError) {
        self.init(filters: [])
        var sawSort = false
        var sawLimit = false
        // Split by bytes: as a Swift string, "\r\n" is one character, which "\n" would not split.
        let lines = Array(fileText.utf8).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        for (index, rawLine) in lines.enumerated() {
            let lineNumber = index + 1
            let line = Self.trimmingBlanks(rawLine)
            if line.isEmpty || line.first == UInt8(ascii: "#") { continue }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw SmartPlaylistSyntaxError(line: lineNumber, "expected KEY: VALUE (filter, sort or limit)")
            }
            let key = String(decoding: Self.trimmingBlanks(line[..<colon]), as: UTF8.self)
            let value = String(decoding: Self.trimmingBlanks(line[(colon + 1)...]), as: UTF8.self)
            do throws(MPDError) {
                switch key {
                case "filter":
                    if let problem = check(try Self.parseFilter(value, now: 0)) {
                        throw MPDError(.argument, problem)
                    }
                    filters.append(value)
                case "sort":
                    guard !sawSort else { throw MPDError(.argument, "sort is given twice") }
                    sawSort = true
                    _ = try Self.parseSort(value)
                    sort = value
                case "limit":
                    guard !sawLimit else { throw MPDError(.argument, "limit is given twice") }
                    sawLimit = true
                    limit = try Self.parseLimit(value)
                default:
                    throw MPDError(.argument, "unknown key \(key.mpdQuoted); expected filter, sort or limit")
                }
            } catch {
                throw SmartPlaylistSyntaxError(line: lineNumber, error.message)
            }
        }
    }

    /// Reads the arguments of `smartplaylist NAME FILTER... [sort KEY] [limit N]` after the
    /// name: `limit` and then `sort` are taken off the end, as `find` takes its modifiers;
    /// every other argument is a filter expression.
    /// - Throws: ACK 2: `Incorrect number of filter arguments` without a filter; an argument
    ///   that is not an expression; the filter, sort and limit messages.
    package init(arguments: ArraySlice<String>) throws(MPDError) {
        var arguments = arguments
        var limit: Int?
        if let value = arguments.popModifier("limit") { limit = try Self.parseLimit(value) }
        var sort: String?
        if let value = arguments.popModifier("sort") {
            _ = try Self.parseSort(value)
            sort = value
        }
        guard !arguments.isEmpty else { throw MPDError(.argument, "Incorrect number of filter arguments") }
        for filter in arguments {
            guard filter.utf8.first == UInt8(ascii: "(") else {
                throw MPDError(.argument, "A smart playlist's filter is an expression in parentheses: \(filter)")
            }
            // The file keeps one filter a line.
            guard !filter.utf8.contains(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) else {
                throw MPDError(.argument, "A smart playlist's filter cannot hold a line break")
            }
            _ = try Self.parseFilter(filter, now: 0)
        }
        self.init(filters: Array(arguments), sort: sort, limit: limit)
    }

    /// The definition as a `.smartpl` file.
    package var fileText: String {
        var lines = ["# Tonearm smart playlist (docs/smart-playlists.md)"]
        lines += filters.map { "filter: " + $0 }
        if let sort { lines.append("sort: " + sort) }
        if let limit { lines.append("limit: \(limit)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The rule as it applies at `now` (UNIX seconds): relative times resolved.
    /// - Throws: ACK 2 with the parser's message, for a definition made by ``init(filters:sort:limit:)``
    ///   that was never checked.
    package func rule(now: Int64) throws(MPDError) -> SmartPlaylistRule {
        var expressions: [FilterExpression] = []
        for filter in filters { expressions.append(try Self.parseFilter(filter, now: now)) }
        let filter: FilterExpression? = expressions.count > 1 ? .and(expressions) : expressions.first
        return SmartPlaylistRule(filter: filter, sort: try sort.map(Self.parseSort), limit: limit)
    }

    // MARK: Parts

    /// `bytes` without the blanks (bytes up to 0x20, a `\r` included) at either end.
    private static func trimmingBlanks(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var text = bytes
        while let first = text.first, first <= 0x20 { text = text.dropFirst() }
        while let last = text.last, last <= 0x20 { text = text.dropLast() }
        return text
    }

    /// One filter: folding case by default, as `search` does (a smart playlist of "jazz"
    /// should find "Jazz").
    static func parseFilter(_ text: String, now: Int64) throws(MPDError) -> FilterExpression {
        try FilterExpression.parse(expression: text, foldCase: true, dialect: .smartPlaylist(now: now))
    }

    /// A sort key: `sticker:NAME`, or what `find … sort` takes (`Artist`, `Added`, …); a
    /// leading `-` sorts descending.
    /// - Throws: ACK 2 `Unknown sort tag`, or a bad sticker name.
    static func parseSort(_ text: String) throws(MPDError) -> SmartPlaylistRule.Sort {
        var body = Substring(text)
        let descending = body.first == "-"
        if descending { body = body.dropFirst() }
        if body.hasPrefix("sticker:") {
            let name = body.dropFirst("sticker:".count)
            guard StickerName.isValid(name) else { throw MPDError(.argument, "Bad sticker name: \(name)") }
            return SmartPlaylistRule.Sort(.sticker(String(name)), descending: descending)
        }
        let order = try SortOrder.parse(text, allowsPriority: false)
        return SmartPlaylistRule.Sort(.library(order.key), descending: order.descending)
    }

    /// A limit: a whole number from 1.
    static func parseLimit(_ text: String) throws(MPDError) -> Int {
        let limit = try Arguments.integer(text)
        guard limit > 0 else { throw MPDError(.argument, "limit must be 1 or more") }
        return limit
    }
}

/// A `.smartpl` file that does not read: the line (from 1) and what is wrong with it.
package struct SmartPlaylistSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line, counted from 1.
    package var line: Int
    /// What is wrong, in the words the protocol uses for the same mistake in a command.
    package var message: String

    /// Creates an error.
    package init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }

    package var description: String { "line \(line): \(message)" }
}
