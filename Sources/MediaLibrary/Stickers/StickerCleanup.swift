import GRDB
import MPDProtocol
import MusicModel

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
    /// - Returns: how many stickers were deleted (then idle `sticker` is due).
    static func run(stickers: StickerStore, library: LibraryStore) throws -> Int {
        var deleted = 0
        for type in try stickers.types() {
            let uris = try stickers.uris(type: type)
            let gone: [String]
            if type == "song" {
                let existing = try library.pool.read { db in try MediaLibrary.existingSongs(uris, db) }
                gone = uris.filter { !existing.contains($0) }
            } else if let filter = filter(type: type) {
                gone = try library.pool.read { db in
                    try uris.filter { uri in
                        // A sticker whose filter no longer parses is kept, as MPD keeps it.
                        guard let expression = filter(uri), (try? MediaLibrary.validateRegexes(expression)) != nil
                        else { return false }
                        return try !MediaLibrary.hasMatch(expression, db)
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
    private static func filter(type: String) -> ((String) -> FilterExpression?)? {
        if type == "filter" {
            return { uri in try? FilterExpression.parse([uri], foldCase: false) }
        }
        guard let tag = TagType(name: type), StickerType.allowedTags.contains(tag) else { return nil }
        return { uri in MediaLibrary.tagFilter(tag, uri) }
    }
}
