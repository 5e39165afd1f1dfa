import Logging
import MPDProtocol
import NIOCore

/// Serves one client connection from greeting to close.
///
/// One task owns the connection and handles its input strictly in order: command lines,
/// command lists and idle wake-ups (see ``SessionInputHandler``). The task runs on the
/// connection's event loop (``EventLoopTaskExecutor``) and talks to it through its
/// ``SessionBridge``. Responses are written as they are produced; the channel's writability
/// makes a slow reader hold up only its own session.
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
        let channel = connection.channel
        guard registry.admit(channel) else {
            // MPD closes before the greeting, so the client sees the connection end at once.
            logger.warning("Max connections reached")
            try? await channel.close()
            return
        }
        defer { registry.remove(channel) }
        logger.debug("client connected")
        let io = connection.io
        // The session joins the idle bus before the client can read the greeting: an event
        // another client raises right after this client connected is not lost.
        var loop = SessionLoop(
            server: server,
            control: connection.control,
            session: SessionState(permissions: connection.permissions, isLocal: connection.isLocal),
            logger: logger,
            output: ResponseStream { try await io.write($0) }
        )
        do {
            try await io.write(ByteBuffer(string: Self.greeting))
            while let input = try await io.next() {
                var step = loop.frame(input)
                // A command list's lines are collected without a suspension while more are queued.
                while step == nil, let queued = io.nextQueued() { step = loop.frame(queued) }
                guard let step else { continue }
                let keepOpen = try await loop.handle(step) { try await io.write($0) }
                if !keepOpen { break }
            }
        } catch is LineDecoder.LineTooLong {
            logger.info("closing connection: Input buffer is full")
        } catch {
            logger.debug("connection ended: \(error)")
        }
        loop.finish()
        io.close()
        logger.debug("client disconnected")
    }
}
