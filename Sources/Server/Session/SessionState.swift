package import MPDProtocol
package import MusicModel
package import Settings

/// What the server knows about one client: its rights and its per-connection settings.
package struct SessionState: Sendable {
    /// The commands the client may run.
    package var permissions: Permissions
    /// Whether the client came through a Unix socket, which makes it "local" in MPD's sense:
    /// `config` and file access are allowed.
    package let isLocal: Bool
    /// The tags the client asked to see (`tagtypes`); responses show this set intersected with
    /// the server's `metadata_to_use`.
    package var tagMask: TagMask = .all
    /// The largest binary chunk the client accepts (`binarylimit`).
    package var binaryLimit = 8192
    /// Protocol features the client switched on (`protocol enable`).
    package var protocolFeatures: Set<ProtocolFeature> = []
    /// The partition the client works with.
    package var partition = "default"
    /// The client's channel subscriptions and messages; set when its session starts.
    var mailbox: ClientMailbox?
    /// The client wrote a play statistics sticker: it counts plays itself
    /// (``PlayCountingClients``).
    var countsPlays = false

    /// Creates the state of a new connection.
    package init(permissions: Permissions, isLocal: Bool) {
        self.permissions = permissions
        self.isLocal = isLocal
    }
}
