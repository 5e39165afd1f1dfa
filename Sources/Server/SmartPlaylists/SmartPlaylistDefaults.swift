import Foundation
package import Logging
package import MPDProtocol
package import MediaLibrary
import Platform

/// The smart playlists a new installation starts with (`default_smart_playlists`, on unless
/// the configuration says `"no"`): the four of issue 22, after the Media Player framework's
/// own smart playlists.
///
/// They are ordinary `.smartpl` files, written once: a user may change, rename or delete them
/// like any other, and a deleted one does not come back. The names written are kept in
/// ``recordName`` in the playlist directory, so that a later start writes only the defaults
/// that a newer release adds.
package enum SmartPlaylistDefaults {
    /// A default smart playlist.
    package struct Default: Sendable {
        /// Its name.
        package var name: String
        /// Its rule.
        package var definition: SmartPlaylistDefinition
        /// Whether it reads stickers (it is written only with a sticker database).
        package var readsStickers: Bool
    }

    /// The default set. Ratings are 0 to 10, as Cantata and myMPD write the `rating` sticker
    /// (five stars, halves included): 8 is four stars.
    package static let all: [Default] = [
        Default(
            name: "Most played",
            definition: SmartPlaylistDefinition(
                filters: ["(sticker:playCount >= 1)"], sort: "-sticker:playCount", limit: 50),
            readsStickers: true),
        Default(
            name: "Recently added",
            definition: SmartPlaylistDefinition(filters: ["(added-since \"-30d\")"], sort: "-Added", limit: 100),
            readsStickers: false),
        Default(
            name: "Never played",
            // Cut, so that it always fits a queue (`max_playlist_length`) in a large library.
            definition: SmartPlaylistDefinition(filters: ["(sticker:playCount == 0)"], sort: "-Added", limit: 500),
            readsStickers: true),
        Default(
            name: "Top rated",
            definition: SmartPlaylistDefinition(
                filters: ["(sticker:rating >= 8)"], sort: "-sticker:rating", limit: 50),
            readsStickers: true),
    ]

    /// The file in the playlist directory that names the defaults written so far, one a line.
    package static let recordName = ".tonearm-default-smart-playlists"

    /// Writes each default not written before, unless a playlist has its name already; the ones
    /// that read stickers only with a sticker database. Runs at start, before the server
    /// listens; a failure is logged and the server runs without them.
    package static func install(into store: StoredPlaylists, withStickers: Bool, logger: Logger) {
        let recordPath = store.directory + "/" + recordName
        let text = (try? String(contentsOfFile: recordPath, encoding: .utf8)) ?? ""
        var written = Set(text.split(separator: "\n").map(String.init))
        let missing = all.filter { !written.contains($0.name) && (withStickers || !$0.readsStickers) }
        guard !missing.isEmpty else { return }
        do {
            for playlist in missing {
                if !store.exists(playlist.name) {
                    try store.writeSmartFile(playlist.definition.fileText, as: playlist.name)
                    logger.info("wrote the default smart playlist \(store.smartPath(of: playlist.name))")
                }
                written.insert(playlist.name)
            }
            try store.writeFileInDirectory(written.sorted().joined(separator: "\n") + "\n", named: recordName)
        } catch {
            logger.error("cannot write the default smart playlists: \(CommandError.ack(for: error).message)")
        }
    }
}
