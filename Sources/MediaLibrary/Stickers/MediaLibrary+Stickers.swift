import GRDB
package import MusicModel

/// What the sticker commands ask of the music database: whether the objects a sticker names
/// exist. MPD checks each sticker type against the database before it touches a sticker.
extension Library {
    /// The URIs among `uris` that name songs in the database.
    package func existingSongs(_ uris: [String]) async throws -> Set<String> {
        try store.read { db in try Self.existingSongs(uris, db) }
    }

    /// Whether some song matches `filter` (MPD's `FilterMatches`, for `filter` and tag
    /// stickers). A filter whose regular expression does not compile matches nothing.
    package func hasMatch(_ filter: FilterExpression) async throws -> Bool {
        guard (try? Self.validateRegexes(filter)) != nil else { return false }
        return try store.read { db in try Self.hasMatch(filter, db) }
    }

    /// The songs that a tag sticker's value stands for: MPD's old-style `TAG VALUE` pair of
    /// `find`, an exact match with the tag's fallbacks (`AlbumArtist` falls back to `Artist`).
    package static func tagFilter(_ tag: TagType, _ value: String) -> FilterExpression {
        .tag(tag, StringPredicate(.equals, value, foldCase: false))
    }

    static func existingSongs(_ uris: [String], _ db: Database) throws -> Set<String> {
        var found = Set<String>()
        // SQLite allows a limited number of parameters per statement.
        var start = 0
        while start < uris.count {
            let chunk = Array(uris[start..<min(start + 500, uris.count)])
            start += chunk.count
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            found.formUnion(
                try String.fetchAll(
                    db, sql: "SELECT uri FROM song WHERE uri IN (\(placeholders))",
                    arguments: StatementArguments(chunk)))
        }
        return found
    }

    static func hasMatch(_ filter: FilterExpression, _ db: Database) throws -> Bool {
        let condition = FilterSQL.condition(filter)
        return try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM song s WHERE \(condition.sql))",
            arguments: StatementArguments(condition.arguments)) ?? false
    }
}
