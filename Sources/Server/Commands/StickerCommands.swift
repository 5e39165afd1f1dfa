import Foundation
import MPDProtocol
import MediaLibrary
import MusicModel
import Settings

/// Commands of MPD's "Stickers" group: `sticker get|set|inc|dec|delete|list|find`,
/// `stickernames`, `stickertypes`, `stickernamestypes` (MPD's `StickerCommands.cxx`).
///
/// All need `admin` and a sticker database; without `sticker_file` they are hidden from
/// `commands` and answer `ACK [5@0] {sticker} sticker database is disabled`.
enum StickerCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition(
            "sticker", permission: .admin, arguments: .atLeast(3), availability: .stickerDatabase,
            handler: sticker),
        CommandDefinition(
            "stickernames", permission: .admin, arguments: .exactly(0), availability: .stickerDatabase,
            handler: names),
        CommandDefinition(
            "stickernamestypes", permission: .admin, arguments: .between(0, 1),
            availability: .stickerDatabase, handler: namesAndTypes),
        CommandDefinition(
            "stickertypes", permission: .admin, arguments: .exactly(0), availability: .stickerDatabase,
            handler: types),
    ]

    /// `sticker SUBCOMMAND TYPE URI ...`, checked in MPD's order: the sticker database, the
    /// music database, the type, the sub-command with its argument count, then the object.
    static func sticker(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let stickers = try invocation.server.requireStickers()
        let library = try invocation.server.requireLibrary()
        let arguments = invocation.arguments
        guard let type = StickerType(name: arguments[1]) else {
            throw MPDError(.argument, "unknown sticker domain \(arguments[1].mpdQuoted)")
        }
        let object = StickerObject(
            type: type, uri: arguments[2], library: library,
            playlistDirectory: invocation.server.configuration.playlistDirectory)
        switch (arguments[0], arguments.count) {
        case ("get", 4):
            let name = arguments[3]
            let value = try await stickers.value(type: type.name, uri: object.key(), name: name)
            // MPD cannot tell an empty value from a missing one.
            guard let value, !value.isEmpty else { throw MPDError(.noExist, "no such sticker: \(name.mpdQuoted)") }
            invocation.response.append("sticker", name + "=" + value)
        case ("list", 3):
            for (name, value) in try await stickers.list(type: type.name, uri: object.key()) {
                invocation.response.append("sticker", name + "=" + value)
            }
        case ("set", 5):
            try requireName(arguments[3])
            try await stickers.set(type: type.name, uri: object.key(), name: arguments[3], value: arguments[4])
            invocation.server.playCountingClients.noteWrite(
                type: type.name, name: arguments[3], session: &invocation.session)
            invocation.server.idleBus.emit(.sticker)
        case ("inc", 5), ("dec", 5):
            // MPD 0.24 hands DELTA to SQLite as it is: no number check, no error.
            try requireName(arguments[3])
            try await stickers.adjust(
                arguments[0] == "inc" ? .increment : .decrement, by: arguments[4],
                type: type.name, uri: object.key(), name: arguments[3])
            invocation.server.playCountingClients.noteWrite(
                type: type.name, name: arguments[3], session: &invocation.session)
            invocation.server.idleBus.emit(.sticker)
        case ("delete", 3), ("delete", 4):
            let name = arguments.count == 4 ? arguments[3] : nil
            guard try await stickers.delete(type: type.name, uri: object.key(), name: name) else {
                // MPD 0.24 crashed here without a name; its fix (MPD #2572) names the URI.
                throw MPDError(
                    .noExist,
                    name.map { "no such sticker: \($0.mpdQuoted)" } ?? "no stickers found: \(arguments[2].mpdQuoted)")
            }
            invocation.server.idleBus.emit(.sticker)
        case ("find", 4...):
            try await find(&invocation, type: type, stickers: stickers, library: library)
        default:
            throw MPDError(.argument, "bad request")
        }
        return .ok
    }

    /// MPD 0.24.9 and later refuse an empty NAME for `set`, `inc` and `dec` before they look at
    /// the object (0.23 ignored it and answered `OK`).
    private static func requireName(_ name: String) throws(MPDError) {
        guard !name.isEmpty else { throw MPDError(.argument, "empty sticker name") }
    }

    /// `sticker find TYPE URI NAME [OP VALUE] [sort KEY] [window START:END]`: for songs,
    /// `file:` and `sticker:` pairs for the songs in directory URI (`""` for all) that still
    /// exist; for other types, `TYPE: URI` and `sticker:` pairs for URIs starting with URI.
    private static func find(
        _ invocation: inout CommandInvocation,
        type: StickerType,
        stickers: StickerStore,
        library: Library
    ) async throws {
        let request = try StickerFindRequest(arguments: invocation.arguments[3...])
        let base = invocation.arguments[2]
        // A song's directory ends at a slash: "a" must not find "ab/song.flac".
        let prefix = type == .song && !base.isEmpty ? base + "/" : base
        var found = try await stickers.find(
            StickerQuery(
                type: type.name, uriPrefix: prefix, name: request.name,
                condition: request.condition, sort: request.sort))
        if type == .song {
            // A sticker may outlive its song until the next update cleans up; MPD skips those.
            let existing = try await library.existingSongs(found.map(\.uri))
            found = found.filter { existing.contains($0.uri) }
        }
        if let window = request.window {
            let start = min(window.start, found.count)
            found = Array(found[start..<max(start, window.upperBound(clippedTo: found.count))])
        }
        let label = type == .song ? "file" : type.name
        for (uri, value) in found {
            invocation.response.append(label, uri)
            invocation.response.append("sticker", request.name + "=" + value)
            try await invocation.flushIfLarge()
        }
    }

    /// `stickernames`: every sticker name in use, sorted.
    static func names(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        for name in try await invocation.server.requireStickers().names() {
            invocation.response.append("name", name)
        }
        return .ok
    }

    /// `stickernamestypes [TYPE]`: each name in use with each type it is used on.
    ///
    /// Unlike `sticker`, MPD 0.24 reads TYPE here with the case-sensitive `tag_name_parse`:
    /// `artist` is `no such tag "artist"`, and a tag stickers cannot have is
    /// `unsupported tag "Track"` (no colon, unlike the `sticker` command's message).
    static func namesAndTypes(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let stickers = try invocation.server.requireStickers()
        let type = invocation.arguments.first
        if let type, !["song", "playlist", "filter"].contains(type) {
            guard let tag = TagType(name: type), tag.name == type else {
                throw MPDError(.argument, "no such tag \(type.mpdQuoted)")
            }
            guard StickerType.allowedTags.contains(tag) else {
                throw MPDError(.argument, "unsupported tag \(type.mpdQuoted)")
            }
        }
        for (name, type) in try await stickers.namesAndTypes(type: type) {
            invocation.response.append("name", name)
            invocation.response.append("type", type)
        }
        return .ok
    }

    /// `stickertypes`: the types stickers can be attached to. As in MPD 0.24, the tags among
    /// them are only those this client sees (`metadata_to_use` and its `tagtypes`).
    static func types(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        _ = try invocation.server.requireStickers()
        let visible = invocation.visibleTags
        for type in ["filter", "playlist", "song"] { invocation.response.append("stickertype", type) }
        for tag in StickerType.allowedTags where visible.contains(tag) {
            invocation.response.append("stickertype", tag.name)
        }
        return .ok
    }
}

/// The object a sticker command names, checked against the database as MPD's domain handlers
/// check it (`ValidateUri`) before any sticker is read or written.
struct StickerObject {
    let type: StickerType
    let uri: String
    let library: Library
    let playlistDirectory: String

    /// The URI the sticker is stored under.
    /// - Throws: ACK 50 `No such song`; ACK 2 `no such playlist: "X"`, `unsupported tag: "T"`,
    ///   `no such T: "X"`, `no matches found: "FILTER"`; ACK 5 for a filter syntax error.
    func key() async throws -> String {
        switch type {
        case .song:
            guard try library.song(at: uri) != nil else { throw MPDError(.noExist, "No such song") }
            return uri
        case .playlist:
            guard isStoredPlaylist(uri) else { throw MPDError(.argument, "no such playlist: \(uri.mpdQuoted)") }
            return uri
        case .filter:
            let filter: FilterExpression
            do {
                filter = try FilterExpression.parse([uri], foldCase: false).optimized
            } catch {
                // MPD's filter handler lets the parser's std::runtime_error reach its generic
                // error path, which answers ACK 5 (`find` catches the same error as ACK 2).
                throw MPDError(.unknown, error.message)
            }
            let normalized = filter.mpdExpression
            guard try await library.hasMatch(filter) else {
                throw MPDError(.argument, "no matches found: \(normalized.mpdQuoted)")
            }
            return normalized
        case .tag(let tag):
            guard StickerType.allowedTags.contains(tag) else {
                throw MPDError(.argument, "unsupported tag: \(tag.name.mpdQuoted)")
            }
            guard try await library.hasMatch(Library.tagFilter(tag, uri)) else {
                throw MPDError(.argument, "no such \(tag.name): \(uri.mpdQuoted)")
            }
            return uri
        }
    }

    /// Whether `name` is a stored playlist: `NAME.m3u` in `playlist_directory`, as MPD's
    /// `ListPlaylistFiles` finds them, or a smart playlist (`NAME.smartpl`), which clients see
    /// as one.
    private func isStoredPlaylist(_ name: String) -> Bool {
        guard !name.isEmpty, !name.contains("/"), !name.contains("\n") else { return false }
        return [".m3u", StoredPlaylists.smartSuffix].contains { suffix in
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(
                atPath: playlistDirectory + "/" + name + suffix, isDirectory: &isDirectory)
            return exists && !isDirectory.boolValue
        }
    }
}
