/// The per-client protocol features of MPD 0.24, switched with the `protocol` command.
package enum ProtocolFeature: String, CaseIterable, Sendable, Hashable {
    /// `lsinfo` of the root no longer lists stored playlists.
    case hidePlaylistsInRoot = "hide_playlists_in_root"

    /// Looks up a feature by name, ignoring case as MPD does.
    package init?(name: String) {
        guard let feature = Self.allCases.first(where: { $0.rawValue == name.lowercased() }) else { return nil }
        self = feature
    }
}
