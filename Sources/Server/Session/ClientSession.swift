import Logging
import MPDProtocol
import NIOCore

/// Serves one client connection from greeting to close.
///
/// The connection's input is handled strictly in order: command lines, command lists and idle
/// wake-ups (see ``SessionInputHandler``). Its ``SessionBridge`` holds the session and handles
/// what needs no suspension as it arrives; one task, on the connection's event loop
/// (``EventLoopTaskExecutor``), carries out the rest: commands with asynchronous handlers, in a
/// command list or not. Responses are written as they are produced; the channel's writability makes
/// a slow reader hold up only its own session.
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
        io.begin(
            SessionLoop(
                server: server,
                control: connection.control,
                session: SessionState(permissions: connection.permissions, isLocal: connection.isLocal),
                logger: logger,
                output: ResponseStream { try await io.write($0) }
            ))
        do {
            try await io.write(ByteBuffer(string: Self.greeting))
            // What needs no suspension is handled by the bridge as it arrives; the task
            // carries out the rest.
            while let step = try await io.nextStep() {
                guard try await io.perform(step) else { break }
            }
        } catch is LineDecoder.LineTooLong {
            logger.info("closing connection: Input buffer is full")
        } catch {
            logger.debug("connection ended: \(error)")
        }
        io.end()?.finish()
        io.close()
        logger.debug("client disconnected")
    }
}
