import Foundation
import GRDB
package import MusicModel

extension Library {
    /// The ids of the songs `selection` picks, sorted and windowed, in output order.
    ///
    /// Songs are fetched afterwards in pages with ``songs(ids:)``, so that a large result is
    /// streamed instead of held whole.
    /// - Throws: ``LibraryError/invalidRegularExpression(pattern:syntax:)``, or
    ///   ``LibraryError/noSuchDirectory(_:)`` for a `base` naming nothing in the database.
    package func songIDs(_ selection: DatabaseSelection) async throws -> [Int64] {
        if let filter = selection.filter { try Self.validateRegexes(filter) }
        return try await store.read(mayScan: selection.filter.map(FilterSQL.mayScan) ?? false) { db in
            if let filter = selection.filter { try Self.validateBase(db, filter) }
            let condition = try selection.filter.map { try store.condition($0, db) } ?? .alwaysTrue
            var ids: [Int64]
            if let sort = selection.sort {
                ids = try Self.sortedIDs(db, condition, sort)
            } else {
                // A window in database order is SQLite's to cut: it keeps the first END ids it
                // sorts instead of every match (a client paging through a broad search).
                var limit = ""
                if let window = selection.window, let end = window.end {
                    limit = " LIMIT \(max(0, end - window.start)) OFFSET \(window.start)"
                }
                ids = try Int64.fetchAll(
                    db, sql: "SELECT s.id FROM song s WHERE \(condition.sql) ORDER BY s.ord\(limit)",
                    arguments: StatementArguments(condition.arguments))
                if !limit.isEmpty { return ids }
            }
            if let window = selection.window {
                let start = min(window.start, ids.count)
                ids = Array(ids[start..<max(start, window.upperBound(clippedTo: ids.count))])
            }
            return ids
        }
    }

    /// The songs with these ids, in the order given.
    package func songs(ids: [Int64]) async throws -> [Song] {
        try store.read { db in try LibraryStore.fetchSongs(db, ids: ids) }
    }

    /// MPD's `sort`: a stable sort of the matching songs in database order by the key.
    static func sortedIDs(_ db: Database, _ condition: SQLFragment, _ sort: MusicModel.SortOrder) throws
        -> [Int64]
    {
        switch sort.key {
        case .lastModified, .added:
            let column = sort.key == .added ? "s.added" : "s.mtime"
            let direction = sort.descending ? "DESC" : "ASC"
            return try Int64.fetchAll(
                db, sql: "SELECT s.id FROM song s WHERE \(condition.sql) ORDER BY \(column) \(direction), s.ord",
                arguments: StatementArguments(condition.arguments))
        case .priority:
            // Every database song has priority 0: the order stays the database order.
            return try Int64.fetchAll(
                db, sql: "SELECT s.id FROM song s WHERE \(condition.sql) ORDER BY s.ord",
                arguments: StatementArguments(condition.arguments))
        case .tag(let tag):
            let chain = [tag] + TagFallback.chain(for: tag)
            let values = chain.map { _ in
                "(SELECT value FROM songTag WHERE song = s.id AND tag = ? ORDER BY id LIMIT 1)"
            }
            let sql =
                "SELECT s.id, COALESCE(\(values.joined(separator: ", ")), '') FROM song s WHERE \(condition.sql) ORDER BY s.ord"
            let rows = try Row.fetchAll(
                db, sql: sql,
                arguments: StatementArguments(chain.map { Int64($0.rawValue).databaseValue } + condition.arguments))
            let keyed: [(id: Int64, value: String)] = rows.map { ($0[0], $0[1]) }
            let numeric = tag == .track || tag == .disc
            // Swift's sort is not stable; the original index breaks ties as MPD's stable sort keeps them.
            let indexed = keyed.enumerated().map { ($0.offset, $0.element) }
            let sorted = indexed.sorted { a, b in
                let order: Int
                if numeric {
                    let x = TagNumber.leading(a.1.value), y = TagNumber.leading(b.1.value)
                    order = x == y ? 0 : (x < y ? -1 : 1)
                } else {
                    order = a.1.value == b.1.value ? 0 : (ByteOrder.precedes(a.1.value, b.1.value) ? -1 : 1)
                }
                if order != 0 { return sort.descending ? order > 0 : order < 0 }
                return a.0 < b.0
            }
            return sorted.map { $0.1.id }
        }
    }
}
