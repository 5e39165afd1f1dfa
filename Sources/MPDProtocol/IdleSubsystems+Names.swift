package import MusicModel

/// The names `idle` takes as arguments and prints in `changed:` lines: protocol spelling, so
/// they stay with the wire while the set itself lives in MusicModel for the player to raise.
extension IdleSubsystems {
    /// The protocol names, in bit order.
    package static let names: [(IdleSubsystems, String)] = [
        (.database, "database"), (.storedPlaylist, "stored_playlist"), (.playlist, "playlist"),
        (.player, "player"), (.mixer, "mixer"), (.output, "output"), (.options, "options"),
        (.sticker, "sticker"), (.update, "update"), (.subscription, "subscription"),
        (.message, "message"), (.neighbor, "neighbor"), (.mount, "mount"), (.partition, "partition"),
    ]

    /// Looks up a subsystem by name, ignoring case as MPD does.
    package init?(name: String) {
        let lowered = name.lowercased()
        guard let match = Self.names.first(where: { $0.1 == lowered }) else { return nil }
        self = match.0
    }

    /// The names of the members, in bit order.
    package var memberNames: [String] {
        Self.names.filter { contains($0.0) }.map(\.1)
    }
}
