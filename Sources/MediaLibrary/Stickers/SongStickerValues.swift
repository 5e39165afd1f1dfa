import GRDB

/// The song stickers a smart playlist's rule reads, as integers: for each sticker name, the
/// value of each song that has it. A song without the sticker reads as 0 (see
/// ``MusicModel/StickerValuePredicate``).
package struct SongStickerValues: Sendable, Equatable {
    private var byName: [String: [String: Int64]] = [:]

    /// No values: every sticker reads as 0 on every song (a server without a sticker database).
    package init() {}

    /// Values given per name, then per song URI (tests).
    package init(_ byName: [String: [String: Int64]]) {
        self.byName = byName
    }

    /// The values of one sticker by song URI; empty when no song has it.
    package func values(of name: String) -> [String: Int64] {
        byName[name] ?? [:]
    }

    /// The value of one song's sticker: 0 when it has none.
    package func value(of name: String, for uri: String) -> Int64 {
        byName[name]?[uri] ?? 0
    }
}

extension StickerStore {
    /// The song stickers of these names, as integers the way `sticker find`'s `eq`, `lt` and
    /// `gt` read them (`CAST(value AS INTEGER)`: text that is no number is 0).
    package func songValues(names: [String]) async throws -> SongStickerValues {
        guard !names.isEmpty else { return SongStickerValues() }
        return try await queue.read { db in
            var byName: [String: [String: Int64]] = [:]
            for name in names {
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT uri, CAST(value AS INTEGER) FROM sticker WHERE type='song' AND name=?",
                    arguments: [name])
                var values: [String: Int64] = [:]
                while let row = try rows.next() { values[row[0]] = row[1] }
                byName[name] = values
            }
            return SongStickerValues(byName)
        }
    }
}
