import Foundation
import GRDB
package import Logging
package import MusicModel

/// The music library: MPD's database, the seed's `MPMediaLibrary`. Songs and directories live
/// in SQLite; the scanner keeps them in line with the music directory; sessions query them
/// concurrently.
package final class Library: Sendable {
    /// What the library needs from the configuration.
    package struct Settings: Sendable {
        /// `music_directory`, absolute.
        package var musicDirectory: String
        /// `db_file`.
        package var databasePath: String
        /// Lowercase file suffixes the decoder plays.
        package var songSuffixes: Set<String>
        /// The tags to store (`metadata_to_use`).
        package var tagMask: TagMask
        /// `follow_inside_symlinks`.
        package var followInsideSymlinks = true
        /// `follow_outside_symlinks`.
        package var followOutsideSymlinks = true
        /// Cover file names tried after MPD's own (`album_art_names`).
        package var albumArtNames: [String] = []
        /// The least time between two progress lines of a long update job; tests shorten it
        /// (`TONEARM_SCAN_PROGRESS_INTERVAL`, read in Sources/tonearm/ServerAssembly.swift).
        package var scanProgressInterval: Duration = .seconds(5)
        /// `update_guard`: refuse updates that would empty the library, or most of it, while
        /// the music is away (``UpdateGuard``).
        package var updateGuard = true

        /// Creates settings.
        package init(musicDirectory: String, databasePath: String, songSuffixes: Set<String>, tagMask: TagMask) {
            self.musicDirectory = musicDirectory
            self.databasePath = databasePath
            self.songSuffixes = songSuffixes
            self.tagMask = tagMask
        }
    }

    /// Suffixes of playlist files in the music directory.
    static let playlistSuffixes: Set<String> = ["m3u", "m3u8", "pls", "xspf", "asx", "cue"]
    /// Suffixes FFmpeg has a demuxer for that never hold a song worth scanning.
    static let ignoredSuffixes: Set<String> = [
        "jpg", "jpeg", "png", "gif", "bmp", "webp", "jxl", "tif", "tiff", "svg", "txt", "nfo", "log", "diz", "ico",
    ]

    /// The settings the library runs with.
    package let settings: Settings
    let store: LibraryStore
    /// The scanner's view of the disk; `auto_update` watches by the same rules.
    let walker: DiskWalker
    /// The update job queue.
    package let updates: UpdateService
    let logger: Logger

    /// Opens the database (creating it on first start, as MPD does).
    /// - Parameters:
    ///   - stickers: the sticker database, whose stickers of removed songs each update deletes.
    ///   - parseFilterSticker: reads a `filter` sticker's name (a filter in MPD's syntax) back
    ///     into its filter, so that the update can delete the stickers of filters that match
    ///     nothing any more; without it they are kept.
    ///   - onEvent: called, on any thread, when an update starts or ends, when the database
    ///     changes, and when stickers were removed with what they belonged to. It must return
    ///     at once and not call back into the library's updates: the end of a job is reported
    ///     while the update state is locked (``UpdateService``).
    package init(
        settings: Settings,
        stickers: StickerStore? = nil,
        parseFilterSticker: FilterStickerParser? = nil,
        logger: Logger,
        onEvent: @escaping @Sendable (LibraryEvent) -> Void
    ) throws {
        var settings = settings
        while settings.musicDirectory.count > 1 && settings.musicDirectory.hasSuffix("/") {
            settings.musicDirectory.removeLast()
        }
        self.settings = settings
        self.logger = logger
        do {
            store = try LibraryStore(path: settings.databasePath)
        } catch  where LibraryStore.isDamage(error) {
            let aside = try LibraryStore.moveAside(settings.databasePath)
            logger.error(
                "the database \(settings.databasePath) is damaged (\(error)); moved it to \(aside) and scanning the music folder again"
            )
            store = try LibraryStore(path: settings.databasePath)
        }
        let realRoot = settings.musicDirectory.withCString { path -> String in
            guard let resolved = realpath(path, nil) else { return settings.musicDirectory }
            defer { free(resolved) }
            return String(cString: resolved)
        }
        walker = DiskWalker(
            root: settings.musicDirectory,
            realRoot: realRoot,
            songSuffixes: settings.songSuffixes.subtracting(Self.ignoredSuffixes).subtracting(Self.playlistSuffixes),
            playlistSuffixes: Self.playlistSuffixes,
            followInsideSymlinks: settings.followInsideSymlinks,
            followOutsideSymlinks: settings.followOutsideSymlinks
        )
        var scanner = MusicFolderScanner(store: store, walker: walker, tagMask: settings.tagMask, logger: logger)
        scanner.updateGuard = UpdateGuard(enabled: settings.updateGuard)
        updates = UpdateService(
            scanner: scanner, stickers: stickers, parseFilterSticker: parseFilterSticker,
            logger: logger, progressInterval: settings.scanProgressInterval, onEvent: onEvent)
    }

    /// Closes the database at shutdown, when the server and everything that queues updates
    /// have stopped (``UpdateService/closeDatabase()``). - Returns: whether it closed; not
    /// while an update still runs.
    package func close() -> Bool { updates.closeDatabase() }

    /// Starts a full update when the database has never been filled, as MPD does on its first
    /// start.
    /// - Returns: whether it started one: until it finishes, the database knows no song.
    @discardableResult
    package func updateIfNew() throws -> Bool {
        let updated = try store.read { db in try LibraryStore.meta(db, "db_update") }
        guard updated == nil else { return false }
        return (try? updates.enqueue("", rescan: false)) != nil
    }

    /// Checks every page of the database in the background, on the update queue (a quarter of
    /// a second at 100,000 songs, so not before serving): a database damaged where opening it
    /// did not look is copied to `db_file.damaged`, emptied and scanned again.
    package func checkDatabaseInBackground() {
        updates.checkDatabase(path: settings.databasePath)
    }

    /// The absolute path of a URI relative to the music directory.
    package func absolutePath(of uri: String) -> String {
        uri.isEmpty ? settings.musicDirectory : settings.musicDirectory + "/" + uri
    }

    /// The figures `stats` prints.
    package func statistics() async throws -> LibraryStatistics {
        try store.read { db in try LibraryStatistics.load(db) }
    }
}
