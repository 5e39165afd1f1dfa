import MPDProtocol
import MediaLibrary
import MusicModel
import Playback
import Settings

/// MPD's "Stored playlists" group: named `.m3u` playlists in `playlist_directory`, and the
/// playlist files of the music folder, which the reading commands and `load` accept too.
enum StoredPlaylistCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("listplaylist", permission: .read, arguments: .between(1, 2)) { invocation in
            try await list(&invocation, details: false)
        },
        CommandDefinition("listplaylistinfo", permission: .read, arguments: .between(1, 2)) { invocation in
            try await list(&invocation, details: true)
        },
        CommandDefinition("listplaylists", permission: .read, arguments: .exactly(0)) { invocation in
            for playlist in try invocation.server.smartPlaylists.listing() {
                write(playlist, to: &invocation.response)
            }
            return .ok
        },
        CommandDefinition("load", permission: .add, arguments: .between(1, 3), handler: load),
        CommandDefinition("playlistadd", permission: .control, arguments: .between(2, 3), handler: playlistAdd),
        CommandDefinition("playlistclear", permission: .control, arguments: .exactly(1)) { invocation in
            try await invocation.server.storedPlaylists.clear(try name(invocation, 0))
            return .ok
        },
        CommandDefinition("playlistdelete", permission: .control, arguments: .exactly(2)) { invocation in
            let range = try Arguments.range(invocation.arguments[1])
            try await invocation.server.storedPlaylists.edit(try name(invocation, 0), createIfMissing: false) {
                entries throws(LibraryError) in
                try StoredPlaylists.remove(range, from: &entries)
                return true
            }
            return .ok
        },
        CommandDefinition("playlistlength", permission: .read, arguments: .exactly(1), handler: length),
        CommandDefinition("playlistmove", permission: .control, arguments: .exactly(3), handler: move),
        CommandDefinition("rename", permission: .control, arguments: .exactly(2)) { invocation in
            try await invocation.server.storedPlaylists.rename(try name(invocation, 0), to: try name(invocation, 1))
            return .ok
        },
        CommandDefinition("rm", permission: .control, arguments: .exactly(1)) { invocation in
            let playlist = try name(invocation, 0)
            try await invocation.server.storedPlaylists.delete(playlist)
            // MPD 0.24 deletes the playlist's stickers with it (reference: `rm`).
            _ = try await invocation.server.stickers?.delete(type: "playlist", uri: playlist, name: nil)
            return .ok
        },
        CommandDefinition("save", permission: .control, arguments: .between(1, 2), handler: save),
        CommandDefinition("searchplaylist", permission: .read, arguments: .between(2, 4), handler: search),
    ]

    // MARK: Reading

    /// `listplaylist NAME [START:END]` (file lines) and `listplaylistinfo NAME [START:END]`
    /// (song blocks; an entry that is not a database song prints as its `file:` line alone).
    /// The range (MPD 0.24) counts every entry and may pass the end.
    static func list(_ invocation: inout CommandInvocation, details: Bool) async throws -> CommandOutcome {
        let argument = invocation.arguments[0]
        try PlaylistSource.locate(argument)
        let range = try invocation.arguments.count > 1 ? Arguments.range(invocation.arguments[1]) : .all
        let source = try await PlaylistSource.open(argument, invocation.server)
        let start = min(range.start, source.entries.count)
        let resolved = try await source.resolve(start..<max(start, range.upperBound(clippedTo: source.entries.count)))
        let tags = invocation.visibleTags
        for entry in resolved {
            if details, let song = entry.song {
                SongPrinter.write(song, tags: tags, to: &invocation.response)
            } else {
                invocation.response.append("file", entry.uri)
            }
            try await invocation.flushIfLarge()
        }
        return .ok
    }

    /// `searchplaylist NAME FILTER [window START:END]` (MPD 0.24): the entries whose songs match,
    /// case-insensitively, each with `Pos:` (its index in the playlist); the window picks among
    /// the matches. Entries that are not database songs match nothing.
    static func search(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let argument = invocation.arguments[0]
        try PlaylistSource.locate(argument)
        var filterArguments = invocation.arguments.dropFirst()
        var window = RangeArgument.all
        // Like MPD, `window` is recognised only as the second of exactly three arguments after
        // the name, so a legacy `TAG VALUE` filter cannot take one.
        if filterArguments.count == 3, filterArguments[filterArguments.startIndex + 1] == "window" {
            window = try Arguments.range(filterArguments.last!)
            filterArguments = filterArguments.dropLast(2)
        }
        let filter = try FilterExpression.parse(filterArguments, foldCase: true)
        let source = try await PlaylistSource.open(argument, invocation.server)
        let resolved = try await source.resolve(source.entries.indices)
        let library = try invocation.server.requireLibrary()
        let matching = try await library.uris(matching: filter, among: resolved.compactMap { $0.song?.uri })
        var skip = window.start
        var remaining = window.end.map { $0 - window.start } ?? Int.max
        let tags = invocation.visibleTags
        for (position, entry) in resolved.enumerated() where remaining > 0 {
            guard let song = entry.song, matching.contains(song.uri) else { continue }
            if skip > 0 {
                skip -= 1
                continue
            }
            SongPrinter.write(song, tags: tags, to: &invocation.response)
            invocation.response.append("Pos", position)
            remaining -= 1
            try await invocation.flushIfLarge()
        }
        return .ok
    }

    /// `playlistlength NAME` (MPD 0.24): `songs:` counts every entry, `playtime:` adds the
    /// durations of those that are database songs, rounded to seconds.
    static func length(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let argument = invocation.arguments[0]
        try PlaylistSource.locate(argument)
        let source = try await PlaylistSource.open(argument, invocation.server)
        let resolved = try await source.resolve(source.entries.indices)
        // MPD adds whole milliseconds and rounds the sum to the nearest second.
        let milliseconds = resolved.reduce(Int64(0)) { sum, entry in
            sum + Int64(((entry.song?.duration ?? 0) * 1000).rounded(.down))
        }
        invocation.response.append("songs", resolved.count)
        invocation.response.append("playtime", (milliseconds + 500) / 1000)
        return .ok
    }

    // MARK: The queue

    /// `load NAME [START:END] [POSITION]`: the database songs and streams of a playlist (or of
    /// the range of its entries) into the queue as one change, at POSITION if given (absolute
    /// or relative to the current song; MPD wants the range then, `0:` for all). Other entries
    /// are skipped, as MPD skips songs it cannot load. Sets `lastloadedplaylist`.
    static func load(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let argument = invocation.arguments[0]
        try PlaylistSource.locate(argument)
        let range = try invocation.arguments.count > 1 ? Arguments.range(invocation.arguments[1]) : .all
        let player = invocation.player
        let position =
            try invocation.arguments.count > 2
            ? QueueEditCommands.insertPosition(invocation.arguments[2], player) : nil
        let source = try await PlaylistSource.open(argument, invocation.server)
        let start = min(range.start, source.entries.count)
        let resolved = try await source.resolve(start..<max(start, range.upperBound(clippedTo: source.entries.count)))
        try player.load(resolved.compactMap(\.song), at: position, name: argument)
        if source.isTruncated { throw QueueError.tooLarge }
        return .ok
    }

    /// `save NAME [create|append|replace]`: the queue as a stored playlist (the mode is MPD 0.24's;
    /// without one, an existing playlist is an error).
    static func save(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        var mode = PlaylistSaveMode.create
        if invocation.arguments.count > 1 {
            guard let chosen = PlaylistSaveMode(rawValue: invocation.arguments[1]) else {
                throw MPDError(.argument, "Unrecognized save mode, expected one of 'create', 'append', 'replace'")
            }
            mode = chosen
        }
        let uris = invocation.player.queue.entries.map(\.song.uri)
        try await invocation.server.storedPlaylists.save(uris, as: try name(invocation, 0), mode: mode)
        return .ok
    }

    // MARK: Editing

    /// `playlistadd NAME URI [POSITION]`: a song, or a directory's songs in database order (`""`
    /// is the whole database), at the end or at POSITION; creates the playlist. Nothing is
    /// written when nothing was found.
    static func playlistAdd(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let store = invocation.server.storedPlaylists
        let uri = invocation.arguments[1]
        guard invocation.arguments.count > 2 else {
            // As MPD, the songs are looked up first and the name checked when they are written.
            let uris = try await songURIs(uri, invocation)
            let playlist = try name(invocation, 0)
            try await store.edit(playlist, createIfMissing: true) { entries throws(LibraryError) in
                try StoredPlaylists.insert(uris, at: entries.count, into: &entries, maximumLength: store.maximumLength)
                return !uris.isEmpty
            }
            return .ok
        }
        let position = Int(try Arguments.unsigned(invocation.arguments[2]))
        let playlist = try name(invocation, 0)
        // The position is checked against the playlist before the URI is looked at.
        let current = try store.editableCount(of: playlist) ?? 0
        guard position <= current else { throw MPDError(.argument, "Bad position") }
        // With a position, MPD stores any URL as it is, without asking whether it plays.
        let uris = RemoteStream.hasScheme(uri) && !uri.hasPrefix("/") ? [uri] : try await songURIs(uri, invocation)
        try await store.edit(playlist, createIfMissing: true) { entries throws(LibraryError) in
            try StoredPlaylists.insert(uris, at: position, into: &entries, maximumLength: store.maximumLength)
            return !uris.isEmpty
        }
        return .ok
    }

    /// The URIs `playlistadd` adds for its URI argument: a stream URL, a `file://` URI of a
    /// database song, or the songs at or below a library URI (`No such directory` when it
    /// names nothing).
    static func songURIs(_ uri: String, _ invocation: CommandInvocation) async throws -> [String] {
        if let url = try LibraryURI.stream(uri) { return [url] }
        let library = try invocation.server.requireLibrary()
        if uri.contains("://") {
            guard LibraryURI.hasFilePrefix(uri), let path = try LibraryURI.filePath(uri) else {
                throw MPDError(.argument, "Unsupported URI scheme")
            }
            guard let relative = QueueEditCommands.relativeURI(path, library) else {
                throw MPDError(.permission, "Access denied")
            }
            guard let song = try library.song(at: relative) else { throw MPDError(.noExist, "No such song") }
            return [song.uri]
        }
        return try await QueueEditCommands.songs(under: uri, in: library).map(\.uri)
    }

    /// `playlistmove NAME FROM|START:END TO` (the range form is MPD 0.24's): moving to where
    /// the range starts does nothing, without even looking for the playlist, as in MPD.
    static func move(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let range = try Arguments.range(invocation.arguments[1])
        let destination = Int(try Arguments.unsigned(invocation.arguments[2]))
        guard let end = range.end else { throw MPDError(.argument, "Open-ended range not supported") }
        guard range.start != destination else { return .ok }
        try await invocation.server.storedPlaylists.edit(try name(invocation, 0), createIfMissing: false) {
            entries throws(LibraryError) in
            try StoredPlaylists.move(range.start..<end, to: destination, in: &entries)
            return true
        }
        return .ok
    }

    // MARK: Helpers

    /// The stored playlist name in argument `index`. A name that is not valid UTF-8 cannot be
    /// a file name MPD maps, so it is a `Bad playlist name` too.
    static func name(_ invocation: CommandInvocation, _ index: Int) throws(LibraryError) -> String {
        let name = invocation.arguments[index]
        guard !invocation.invalidUTF8Arguments.contains(index) else { throw .invalidPlaylistName(name) }
        try StoredPlaylists.validate(name)
        return name
    }

    /// `playlist: NAME` and its `Last-Modified`, as `listplaylists` and `lsinfo` print them.
    static func write(_ playlist: StoredPlaylistInfo, to response: inout ResponseBuffer) {
        response.append("playlist", playlist.name)
        response.append("Last-Modified", SongPrinter.timestamp(playlist.lastModified))
    }
}
