import NIOCore
import Settings

/// A connection accepted by one of the listeners, set up and ready for its session.
struct AcceptedConnection: Sendable {
    /// The connection.
    let channel: any Channel
    /// The session's end of the connection: ``SessionInput`` in, bytes out.
    let io: SessionIO
    /// The handle on the connection's input handler (idle wake-ups, timeout).
    let control: SessionControl
    /// Whether it came through a Unix socket.
    let isLocal: Bool
    /// The permissions it starts with.
    let permissions: Permissions
    /// The client's address, for the log.
    let peer: String
}
