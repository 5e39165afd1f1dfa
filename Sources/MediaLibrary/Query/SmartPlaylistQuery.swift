import Foundation
import GRDB
package import MusicModel

extension Library {
    /// The songs a smart playlist's rule chooses now, by URI, in its order and cut to its
    /// limit.
    ///
    /// A `base` that names nothing matches nothing, where `find` answers `No such directory`:
    /// a rule outlives the folders it names, and its playlist is then empty until one is back.
    /// - Parameter stickers: the values of the stickers the rule reads
    ///   (``SmartPlaylistRule/stickerNames``), read from the sticker database beforehand.
    /// - Throws: ``LibraryError/invalidRegularExpression(pattern:syntax:)``, or the database's
    ///   error.
    package func songURIs(_ rule: SmartPlaylistRule, stickers: SongStickerValues) async throws -> [String] {
        if let filter = rule.filter { try Self.validateRegexes(filter) }
        let condition = rule.filter.map { FilterSQL.condition($0, stickers: stickers) } ?? .alwaysTrue
        let limit = rule.limit ?? Int.max
        // Sticker terms and sorts read every song: off the event loop.
        return try await store.read(mayScan: true) { db in
            let arguments = StatementArguments(condition.arguments)
            switch rule.sort?.key {
            case nil:
                // SQLite cuts it: at most `limit` rows are read past the filter.
                let cut = rule.limit.map { " LIMIT \($0)" } ?? ""
                return try String.fetchAll(
                    db, sql: "SELECT s.uri FROM song s WHERE \(condition.sql) ORDER BY s.ord\(cut)",
                    arguments: arguments)
            case .library(let key)? where key == .added || key == .lastModified:
                // A time has an index: SQLite walks it and stops at the limit ("recently added",
                // "never played" newest first) instead of sorting every match.
                let column = key == .added ? "s.added" : "s.mtime"
                let direction = rule.sort?.descending == true ? "DESC" : "ASC"
                let cut = rule.limit.map { " LIMIT \($0)" } ?? ""
                return try String.fetchAll(
                    db,
                    sql: "SELECT s.uri FROM song s WHERE \(condition.sql) ORDER BY \(column) \(direction), s.ord\(cut)",
                    arguments: arguments)
            case .library(let key)?:
                let ids = try Self.sortedIDs(db, condition, SortOrder(key, descending: rule.sort?.descending ?? false))
                return try Self.uris(db, ids: Array(ids.prefix(limit)))
            case .sticker(let name)?:
                let rows = try Row.fetchAll(
                    db, sql: "SELECT s.uri FROM song s WHERE \(condition.sql) ORDER BY s.ord", arguments: arguments)
                let uris: [String] = rows.map { $0[0] }
                let descending = rule.sort?.descending ?? false
                // Swift's sort is not stable: the database order breaks ties, as `find … sort` keeps it.
                let sorted = uris.enumerated().map {
                    ($0.offset, $0.element, stickers.value(of: name, for: $0.element))
                }
                .sorted { a, b in
                    if a.2 != b.2 { return descending ? a.2 > b.2 : a.2 < b.2 }
                    return a.0 < b.0
                }
                return sorted.prefix(limit).map(\.1)
            }
        }
    }

    /// Checks what the database checks of a filter before it runs: its regular expressions.
    /// - Throws: ``LibraryError/invalidRegularExpression(pattern:syntax:)``.
    package static func checkFilter(_ filter: FilterExpression) throws(LibraryError) {
        try validateRegexes(filter)
    }

    /// The URIs of the songs with these ids, in the order given.
    private static func uris(_ db: Database, ids: [Int64]) throws -> [String] {
        guard !ids.isEmpty else { return [] }
        let list = String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)
        var byID: [Int64: String] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT id, uri FROM song WHERE id IN (SELECT value FROM json_each(?))", arguments: [list])
        {
            byID[row[0]] = row[1]
        }
        return ids.compactMap { byID[$0] }
    }
}
