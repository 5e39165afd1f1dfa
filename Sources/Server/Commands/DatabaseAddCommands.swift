import MPDProtocol
import MediaLibrary
import MusicModel
import Playback
import Settings

/// The database commands that feed the queue or a stored playlist: `findadd`, `searchadd`,
/// `searchaddpl`.
enum DatabaseAddCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("findadd", permission: .add, arguments: .atLeast(1)) { invocation in
            try await add(&invocation, foldCase: false)
        },
        CommandDefinition("searchadd", permission: .add, arguments: .atLeast(1)) { invocation in
            try await add(&invocation, foldCase: true)
        },
        CommandDefinition("searchaddpl", permission: .control, arguments: .atLeast(2), handler: searchAddToPlaylist),
    ]

    /// `searchaddpl NAME FILTER [sort TYPE] [window START:END] [position POS]`: the matching
    /// songs, as `search` orders them, into a stored playlist (created if missing), at its end
    /// or at the absolute POS. As in MPD, nothing is written (and without a position the name is
    /// not even checked) when nothing matches.
    static func searchAddToPlaylist(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let selection = try DatabaseSelection.parse(
            invocation.arguments.dropFirst(), foldCase: true, allowsPosition: true)
        let position = try selection.position.map { Int(try Arguments.unsigned($0)) }
        let store = invocation.server.storedPlaylists
        let library = try invocation.server.requireLibrary()
        if let position {
            let name = try StoredPlaylistCommands.name(invocation, 0)
            guard position <= (try store.editableCount(of: name) ?? 0) else {
                throw MPDError(.argument, "Bad position")
            }
        }
        let ids = try await library.songIDs(selection)
        var uris: [String] = []
        var start = 0
        while start < ids.count {
            let page = Array(ids[start..<min(start + 1000, ids.count)])
            start += page.count
            uris += try await library.songs(ids: page).map(\.uri)
        }
        guard !uris.isEmpty else { return .ok }
        let name = try StoredPlaylistCommands.name(invocation, 0)
        try await store.edit(name, createIfMissing: true) { [uris] entries throws(LibraryError) in
            try StoredPlaylists.insert(
                uris, at: position ?? entries.count, into: &entries, maximumLength: store.maximumLength)
            return true
        }
        return .ok
    }

    /// Adds the matching songs, sorted and windowed as `find` would print them;
    /// `position POS` inserts them there (absolute or relative to the current song).
    private static func add(_ invocation: inout CommandInvocation, foldCase: Bool) async throws -> CommandOutcome {
        let selection = try DatabaseSelection.parse(invocation.arguments[...], foldCase: foldCase, allowsPosition: true)
        let library = try invocation.server.requireLibrary()
        let player = invocation.player
        let position = try selection.position.map { try QueueEditCommands.insertPosition($0, player) }
        let ids = try await library.songIDs(selection)
        var songs: [Song] = []
        var start = 0
        while start < ids.count {
            let page = Array(ids[start..<min(start + 1000, ids.count)])
            start += page.count
            songs += try await library.songs(ids: page)
        }
        // Each song is a queue change of its own, as in MPD's `handle_match_add`.
        try player.add(songs, at: position, bulk: false)
        return .ok
    }
}
