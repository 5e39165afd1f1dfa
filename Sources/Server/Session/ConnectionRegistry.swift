import NIOCore
import Synchronization

/// The open client connections: enforces `max_connections` and closes them all at shutdown.
final class ConnectionRegistry: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var closing = false
    }

    private let limit: Int
    private let state = Mutex(State())

    /// Creates a registry admitting at most `limit` connections at once.
    init(limit: Int) {
        self.limit = limit
    }

    /// Adds a new connection.
    /// - Returns: `false` when the server is full or shutting down; the caller closes the
    ///   connection without a greeting, as MPD does.
    func admit(_ channel: any Channel) -> Bool {
        state.withLock { state in
            guard !state.closing, state.channels.count < limit else { return false }
            state.channels[ObjectIdentifier(channel)] = channel
            return true
        }
    }

    /// Removes a connection that ended.
    func remove(_ channel: any Channel) {
        _ = state.withLock { $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// The number of open connections.
    var count: Int { state.withLock { $0.channels.count } }

    /// Refuses new connections from now on and closes the open ones.
    func closeAll() {
        let channels = state.withLock { state in
            state.closing = true
            return Array(state.channels.values)
        }
        for channel in channels { channel.close(promise: nil) }
    }
}
