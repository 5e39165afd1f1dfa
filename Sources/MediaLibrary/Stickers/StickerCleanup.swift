import GRDB
package import MusicModel

/// Removes the stickers of objects that left the database, after an update changed it: song
/// stickers whose song is gone, tag stickers whose value no song has any more, and filter
/// stickers whose filter matches nothing. MPD 0.23 deletes a song's stickers as the update
/// removes the song; MPD 0.24's `StickerCleanupService` checks every song, tag and filter
/// sticker after the update, which also catches songs removed while the server was not
/// running. Tonearm does what 0.24 does, on the update queue, after the job committed.
///
/// Playlist stickers are left alone: stored playlists are not in the music database (MPD's
/// cleanup skips them too; `rm` deletes them).
enum StickerCleanup {
    /// Runs the cleanup.
    /// - Parameter parseFilter: reads a `filter` sticker's name back into its filter; without
    ///   it filter stickers are kept.
    /// - Returns: how many stickers were deleted (then idle `sticker` is due).
    static func run(stickers: StickerStore, library: LibraryStore, parseFilter: FilterStickerParser?) throws -> Int {
        var deleted = 0
        for type in try stickers.types() {
            let uris = try stickers.uris(type: type)
            let gone: [String]
            if type == "song" {
                let existing = try library.read { db in try Library.existingSongs(uris, db) }
                gone = uris.filter { !existing.contains($0) }
            } else if let filter = filter(type: type, parseFilter: parseFilter) {
                gone = try library.read { db in
                    try uris.filter { uri in
                        // A sticker whose filter no longer parses is kept, as MPD keeps it.
                        guard let expression = filter(uri), (try? Library.validateRegexes(expression)) != nil
                        else { return false }
                        return try !Library.hasMatch(expression, db)
                    }
                }
            } else {
                continue
            }
            deleted += try stickers.deleteAll(type: type, uris: gone)
        }
        return deleted
    }

    /// How the URIs of a sticker type become filters, or `nil` for types the cleanup keeps.
    private static func filter(type: String, parseFilter: FilterStickerParser?) -> ((String) -> FilterExpression?)? {
        if type == "filter" { return parseFilter }
        guard let tag = TagType(name: type), StickerType.allowedTags.contains(tag) else { return nil }
        return { uri in Library.tagFilter(tag, uri) }
    }
}

/// Reads the name of a `filter` sticker, a filter written in MPD's syntax, back into the filter
/// (`nil` when it does not parse). The library has no parser of that syntax: whoever builds it
/// hands in the protocol's.
package typealias FilterStickerParser = @Sendable (String) -> FilterExpression?
