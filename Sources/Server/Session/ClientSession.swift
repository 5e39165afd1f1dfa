import Logging
import MPDProtocol
import NIOCore

/// Serves one client connection from greeting to close.
///
/// One task owns the connection and handles its input strictly in order: command lines,
/// command lists and idle wake-ups (see ``SessionInputHandler``). The task runs on the
/// connection's event loop (``EventLoopTaskExecutor``). Responses are written as they are
/// produced; the channel's writability makes a slow reader hold up only its own session.
struct ClientSession {
    /// MPD's greeting. The version is the protocol version, the same for every 0.24 release.
    static let greeting = "OK MPD 0.24.0\n"

    let server: ServerContext
    let registry: ConnectionRegistry
    let logger: Logger

    /// Runs the session until the client leaves, breaks a protocol rule, or the server stops.
    func run(_ connection: AcceptedConnection) async {
        var logger = self.logger
        logger[metadataKey: "client"] = "\(connection.peer)"
        let channel = connection.channel.channel
        guard registry.admit(channel) else {
            // MPD closes before the greeting, so the client sees the connection end at once.
            logger.warning("Max connections reached")
            try? await channel.close()
            return
        }
        defer { registry.remove(channel) }
        logger.debug("client connected")
        do {
            try await connection.channel.executeThenClose { inbound, outbound in
                // The session joins the idle bus before the client can read the greeting: an
                // event another client raises right after this client connected is not lost.
                var loop = SessionLoop(
                    server: server,
                    control: connection.control,
                    session: SessionState(permissions: connection.permissions, isLocal: connection.isLocal),
                    logger: logger,
                    output: ResponseStream { try await outbound.write($0) }
                )
                defer { loop.finish() }
                try await outbound.write(ByteBuffer(string: Self.greeting))
                for try await input in inbound {
                    let keepOpen = try await loop.handle(input) { try await outbound.write($0) }
                    if !keepOpen { return }
                }
            }
        } catch is LineDecoder.LineTooLong {
            logger.info("closing connection: Input buffer is full")
        } catch {
            logger.debug("connection ended: \(error)")
        }
        logger.debug("client disconnected")
    }
}
