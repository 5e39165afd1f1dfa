package import Settings

/// The commands the server implements, looked up by name.
///
/// Adding a command is one ``CommandDefinition`` in the file of its group (the groups follow
/// MPD's protocol documentation) and one handler. Only implemented commands are here, so
/// `commands` never advertises something that does not work.
package struct CommandTable: Sendable {
    /// The definitions sorted by name, the order `commands` prints them in.
    package let definitions: [CommandDefinition]
    /// The definitions by the first letter and the length of their names (``bucket(_:)``): a
    /// bucket holds one to three names, compared whole. Every command line is looked up, and
    /// hashing its word cost more than the rest of the lookup.
    private let buckets: [[CommandDefinition]]
    private static let longestBucketedName = 31

    /// Creates a table.
    /// - Precondition: names are unique, and begin with a lowercase letter.
    package init(_ definitions: [CommandDefinition]) {
        self.definitions = definitions.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
        precondition(Set(definitions.map(\.name)).count == definitions.count, "command names are unique")
        var buckets = [[CommandDefinition]](repeating: [], count: 26 * (Self.longestBucketedName + 1))
        for definition in definitions {
            buckets[Self.bucket(definition.name)!].append(definition)
        }
        self.buckets = buckets
    }

    /// Looks up a command by its exact (case-sensitive) name.
    package subscript(name: String) -> CommandDefinition? {
        guard let bucket = Self.bucket(name) else { return nil }
        return buckets[bucket].first { $0.name == name }
    }

    /// Where names beginning like `name`, and as long, are kept; `nil` for a name no command
    /// has (not beginning with a lowercase letter).
    private static func bucket(_ name: String) -> Int? {
        guard let first = name.utf8.first, (0x61...0x7A).contains(first) else { return nil }
        return Int(first - 0x61) * (longestBucketedName + 1) + min(name.utf8.count, longestBucketedName)
    }

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
