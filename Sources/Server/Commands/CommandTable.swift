package import Settings

/// The commands the server implements, looked up by name.
///
/// Adding a command is one ``CommandDefinition`` in the file of its group (the groups follow
/// MPD's protocol documentation) and one handler. Only implemented commands are here, so
/// `commands` never advertises something that does not work.
package struct CommandTable: Sendable {
    /// The definitions sorted by name, the order `commands` prints them in.
    package let definitions: [CommandDefinition]
    private let byName: [String: CommandDefinition]

    /// Creates a table.
    /// - Precondition: names are unique.
    package init(_ definitions: [CommandDefinition]) {
        self.definitions = definitions.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        byName = Dictionary(uniqueKeysWithValues: definitions.map { ($0.name, $0) })
    }

    /// Looks up a command by its exact (case-sensitive) name.
    package subscript(name: String) -> CommandDefinition? { byName[name] }

    /// Every command Tonearm implements.
    package static let standard = CommandTable(
        StatusCommands.definitions + ConnectionCommands.definitions + ReflectionCommands.definitions
            + DatabaseBrowseCommands.definitions + DatabaseQueryCommands.definitions + UpdateCommands.definitions
            + ArtworkCommands.definitions + DatabaseAddCommands.definitions + PlaybackCommands.definitions
            + PlaybackOptionCommands.definitions + QueueEditCommands.definitions + QueueInfoCommands.definitions
            + OutputCommands.definitions + StoredPlaylistCommands.definitions + SmartPlaylistCommands.definitions
            + StickerCommands.definitions
            + MessageCommands.definitions + PartitionCommands.definitions
    )

    /// The names of the commands a client with `permissions` may run, among those `server`
    /// can offer (`commands`); every one permitted when `server` is `nil`.
    package func names(allowedFor permissions: Permissions, on server: ServerContext? = nil) -> [String] {
        definitions.filter { definition in
            permissions.isSuperset(of: definition.permission) && (server.map(definition.availability.isMet) ?? true)
        }.map(\.name)
    }

    /// The names of the commands a client with `permissions` may not run.
    package func names(deniedFor permissions: Permissions) -> [String] {
        definitions.filter { !permissions.isSuperset(of: $0.permission) }.map(\.name)
    }
}
