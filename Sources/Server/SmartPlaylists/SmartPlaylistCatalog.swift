import Foundation
package import Logging
package import MPDProtocol
package import MediaLibrary
import MusicModel
import Synchronization

/// The smart playlists as the commands see them (docs/smart-playlists.md): the `.smartpl` files
/// of the playlist directory read into definitions, listed beside the stored playlists, and
/// evaluated against the library and the song stickers each time a client reads one.
///
/// A file that does not read is left out of the listings and logged once per version of its
/// text, naming the file and the line; a command that names it gets ACK 53
/// (``LibraryError/invalidSmartPlaylist(_:line:reason:)``). Nothing of it is cached but what was
/// logged: a file is a few lines, read when a command needs it, as stored playlists are.
package final class SmartPlaylistCatalog: Sendable {
    /// A smart playlist that reads.
    package struct Entry: Sendable {
        /// The name: the file name without `.smartpl`.
        package var name: String
        /// What `listplaylists` shows as `Last-Modified`: the file's time, or the last time
        /// its songs were seen to change, whichever is later.
        package var lastModified: Int64
        /// The rule as written.
        package var definition: SmartPlaylistDefinition
    }

    /// The files, shared with the stored playlists.
    package let store: StoredPlaylists
    private let library: Library?
    private let stickers: StickerStore?
    private let logger: Logger
    private let now: @Sendable () -> Int64
    /// The text of each bad file already logged, so that it is logged again only once it changes.
    private let reported = Mutex<[String: String]>([:])
    /// What ``SmartPlaylistMonitor`` last saw of each playlist's songs.
    private let contents = Mutex<[String: ContentState]>([:])

    /// What a playlist's songs were at the last look: a hash of their URIs in order, and when
    /// they last changed (UNIX seconds).
    private struct ContentState {
        var fingerprint: Int
        var changed: Int64
    }

    /// Creates the catalog.
    /// - Parameters:
    ///   - store: the playlist directory's files.
    ///   - library: where the songs come from; without one every smart playlist is empty.
    ///   - stickers: the sticker database; without one every sticker reads as 0.
    ///   - now: the UNIX time relative times count from (a test fixes it).
    package init(
        store: StoredPlaylists, library: Library?, stickers: StickerStore?, logger: Logger,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.store = store
        self.library = library
        self.stickers = stickers
        self.logger = logger
        self.now = now
    }

    // MARK: Reading

    /// The smart playlist `name` as written; `nil` when there is no such file.
    /// - Throws: ``LibraryError/invalidSmartPlaylist(_:line:reason:)`` for a file that does not
    ///   read; a failed read.
    package func entry(named name: String) throws(LibraryError) -> Entry? {
        guard let file = try store.smartText(of: name) else { return nil }
        let definition = try Self.definition(name, file.text)
        let changed = contents.withLock { $0[name]?.changed } ?? 0
        return Entry(name: name, lastModified: max(file.lastModified, changed), definition: definition)
    }

    /// Every smart playlist that reads, by name; the others are logged (once) and left out.
    package func entries() -> [Entry] {
        let files: [StoredPlaylistInfo]
        do {
            files = try store.smartList()
        } catch {
            logger.error(
                "cannot list the smart playlists in \(store.directory): \(CommandError.ack(for: error).message)")
            return []
        }
        return files.compactMap { file -> Entry? in
            do throws(LibraryError) {
                return try entry(named: file.name)
            } catch {
                report(file.name, error)
                return nil
            }
        }
    }

    /// What `listplaylists` and `lsinfo` list: the stored playlists and the smart ones that
    /// read, by name; a smart playlist hides a stored one of the same name.
    package func listing() throws(LibraryError) -> [StoredPlaylistInfo] {
        let smart = entries().map { StoredPlaylistInfo(name: $0.name, lastModified: $0.lastModified) }
        let names = Set(smart.map(\.name))
        return (try store.list().filter { !names.contains($0.name) } + smart)
            .sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// The songs of `definition` now, by URI, in its order.
    /// - Throws: the library's errors (a regular expression that does not compile).
    package func songURIs(_ definition: SmartPlaylistDefinition) async throws -> [String] {
        guard let library else { return [] }
        let rule = try definition.rule(now: now())
        let values = try await stickers?.songValues(names: rule.stickerNames) ?? SongStickerValues()
        return try await library.songURIs(rule, stickers: values)
    }

    /// Checks what the library would refuse in a definition: its regular expressions.
    /// - Throws: ``LibraryError/invalidRegularExpression(pattern:syntax:)``.
    package static func check(_ definition: SmartPlaylistDefinition) throws {
        if let filter = try definition.rule(now: 0).filter { try Library.checkFilter(filter) }
    }

    /// Reads a file, checking each filter line as the library would.
    private static func definition(_ name: String, _ text: String) throws(LibraryError) -> SmartPlaylistDefinition {
        do {
            return try SmartPlaylistDefinition(fileText: text) { filter in
                do {
                    try Library.checkFilter(filter)
                    return nil
                } catch {
                    return CommandError.ack(for: error).message
                }
            }
        } catch {
            throw .invalidSmartPlaylist(name, line: error.line, reason: error.message)
        }
    }

    /// Logs a smart playlist that does not read, once per text of its file.
    private func report(_ name: String, _ error: LibraryError) {
        let text = (try? store.smartText(of: name))?.text ?? ""
        let isNew = reported.withLock { reported in
            defer { reported[name] = text }
            return reported[name] != text
        }
        guard isNew else { return }
        if case .invalidSmartPlaylist(_, let line, let reason) = error {
            logger.error("\(store.smartPath(of: name)):\(line): \(reason); the smart playlist \"\(name)\" is left out")
        } else {
            logger.error("cannot read the smart playlist \"\(name)\": \(CommandError.ack(for: error).message)")
        }
    }

    // MARK: Changes of the songs

    /// Evaluates every smart playlist and remembers its songs, for ``SmartPlaylistMonitor``.
    /// - Returns: whether the songs of a playlist seen at the last call changed. A playlist new
    ///   since then is not a change: its file's change raised `stored_playlist` already.
    package func refreshContents() async -> Bool {
        var current: [String: Int] = [:]
        for entry in entries() {
            do {
                current[entry.name] = try await songURIs(entry.definition).hashValue
            } catch is CancellationError {
                // The server is stopping, or could not start: not the playlist's fault, and the
                // contents seen last stay as they were.
                return false
            } catch {
                logger.error(
                    "cannot evaluate the smart playlist \"\(entry.name)\": \(CommandError.ack(for: error).message)")
            }
        }
        let time = now()
        return contents.withLock { contents in
            var changed = false
            var next: [String: ContentState] = [:]
            for (name, fingerprint) in current {
                if let old = contents[name] {
                    let differs = old.fingerprint != fingerprint
                    changed = changed || differs
                    next[name] = ContentState(fingerprint: fingerprint, changed: differs ? time : old.changed)
                } else {
                    next[name] = ContentState(fingerprint: fingerprint, changed: 0)
                }
            }
            contents = next
            return changed
        }
    }
}
