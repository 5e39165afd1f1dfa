import MPDProtocol
import MediaLibrary
import MusicModel
import Settings

/// Smart playlists (beyond MPD; docs/smart-playlists.md): defining one, and reading the rules.
/// Every client sees them as stored playlists through the stored playlist commands
/// (``StoredPlaylistCommands``), which evaluate the rule each time; these two commands are for
/// the clients that make and edit them.
enum SmartPlaylistCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("smartplaylist", permission: .control, arguments: .atLeast(2), handler: define),
        CommandDefinition("smartplaylistinfo", permission: .read, arguments: .between(0, 1), handler: info),
    ]

    /// `smartplaylist NAME FILTER... [sort KEY] [limit N]`: writes `NAME.smartpl`, new or in
    /// place of the smart playlist of that name; idle `stored_playlist`. A stored playlist of
    /// that name is not replaced (`Playlist already exists`).
    static func define(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let name = try StoredPlaylistCommands.name(invocation, 0)
        let definition = try SmartPlaylistDefinition(arguments: invocation.arguments.dropFirst())
        // What the library refuses (a regular expression) is refused now, not at each read.
        try SmartPlaylistCatalog.check(definition)
        try await invocation.server.storedPlaylists.saveSmart(definition.fileText, as: name)
        return .ok
    }

    /// `smartplaylistinfo [NAME]`: the rule of one smart playlist, or of every one that reads,
    /// by name: `playlist:`, `Last-Modified:`, then `filter:` lines, `sort:` and `limit:` as the
    /// file has them.
    static func info(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let catalog = invocation.server.smartPlaylists
        let entries: [SmartPlaylistCatalog.Entry]
        if invocation.arguments.isEmpty {
            entries = catalog.entries()
        } else {
            let name = try StoredPlaylistCommands.name(invocation, 0)
            guard let entry = try catalog.entry(named: name) else {
                throw MPDError(.noExist, "No such smart playlist")
            }
            entries = [entry]
        }
        for entry in entries {
            StoredPlaylistCommands.write(
                StoredPlaylistInfo(name: entry.name, lastModified: entry.lastModified), to: &invocation.response)
            for filter in entry.definition.filters { invocation.response.append("filter", filter) }
            if let sort = entry.definition.sort { invocation.response.append("sort", sort) }
            if let limit = entry.definition.limit { invocation.response.append("limit", limit) }
        }
        return .ok
    }
}
