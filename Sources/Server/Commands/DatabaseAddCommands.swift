import Configuration
import MediaLibrary
import MPDProtocol
import Playback

/// The database commands that feed the queue: `findadd` and `searchadd`.
enum DatabaseAddCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("findadd", permission: .add, arguments: .atLeast(1)) { invocation in
            try await add(&invocation, foldCase: false)
        },
        CommandDefinition("searchadd", permission: .add, arguments: .atLeast(1)) { invocation in
            try await add(&invocation, foldCase: true)
        },
    ]

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
