import GRDB
import MusicModel

/// The database figures `stats` prints, computed after each update that changed something and
/// kept in the database so that a restarted server answers at once.
package struct LibraryStatistics: Sendable, Equatable {
    /// Distinct `Artist` values.
    package var artists: Int64
    /// Distinct `Album` values.
    package var albums: Int64
    /// Songs.
    package var songs: Int64
    /// The sum of all durations, in seconds.
    package var playtime: Int64
    /// When the database was last updated (UNIX seconds), if ever.
    package var lastUpdate: Int64?

    /// Recomputes the figures and records `updateTime` as the last update.
    static func refresh(_ db: Database, updateTime: Int64) throws {
        let artists =
            try Int64.fetchOne(
                db, sql: "SELECT count(DISTINCT value) FROM songTag WHERE tag = ?",
                arguments: [TagType.artist.rawValue]) ?? 0
        let albums =
            try Int64.fetchOne(
                db, sql: "SELECT count(DISTINCT value) FROM songTag WHERE tag = ?",
                arguments: [TagType.album.rawValue]) ?? 0
        let songs = try Int64.fetchOne(db, sql: "SELECT count(*) FROM song") ?? 0
        let playtime = try Double.fetchOne(db, sql: "SELECT total(duration) FROM song") ?? 0
        try LibraryStore.setMeta(db, "artists", artists)
        try LibraryStore.setMeta(db, "albums", albums)
        try LibraryStore.setMeta(db, "songs", songs)
        try LibraryStore.setMeta(db, "playtime", CountGroup.wholeSeconds(playtime))
        try LibraryStore.setMeta(db, "db_update", updateTime)
    }

    /// The stored figures.
    static func load(_ db: Database) throws -> LibraryStatistics {
        LibraryStatistics(
            artists: try LibraryStore.meta(db, "artists") ?? 0,
            albums: try LibraryStore.meta(db, "albums") ?? 0,
            songs: try LibraryStore.meta(db, "songs") ?? 0,
            playtime: try LibraryStore.meta(db, "playtime") ?? 0,
            lastUpdate: try LibraryStore.meta(db, "db_update")
        )
    }
}
