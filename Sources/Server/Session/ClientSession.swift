import Configuration
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

/// The state machine of one session: framing, idle, and running commands.
struct SessionLoop {
    private let server: ServerContext
    private let control: SessionControl
    private let dispatcher: CommandDispatcher
    private let inbox: IdleInbox
    private let logger: Logger
    private var session: SessionState
    private var framer: RequestFramer
    /// The subsystems the client waits for while it idles; `nil` when it does not.
    private var idleMask: IdleSubsystems?

    init(
        server: ServerContext,
        control: SessionControl,
        session: SessionState,
        logger: Logger,
        output: ResponseStream? = nil
    ) {
        self.server = server
        self.control = control
        self.session = session
        self.logger = logger
        dispatcher = CommandDispatcher(table: server.commands, server: server, output: output)
        framer = RequestFramer(maximumListSize: server.configuration.maxCommandListSize)
        inbox = IdleInbox(wake: control.wake)
        server.idleBus.register(inbox)
        self.session.mailbox = server.channels.open(inbox: inbox)
    }

    /// The client's current state.
    var state: SessionState { session }

    /// Disconnects from the idle bus and from the message channels.
    func finish() {
        server.idleBus.unregister(inbox)
        if let mailbox = session.mailbox { server.channels.close(mailbox) }
    }

    /// Handles one input.
    /// - Parameter write: sends bytes to the client, waiting while its buffer is full.
    /// - Returns: `false` when the connection must be closed.
    mutating func handle(
        _ input: SessionInput,
        write: (ByteBuffer) async throws -> Void
    ) async throws -> Bool {
        switch input {
        case .idleWake:
            guard let mask = idleMask else { return true }
            let ready = inbox.collect(mask)
            if ready.isEmpty {
                // A wake-up that belonged to an earlier idle: keep waiting.
                if let late = inbox.beginWaiting(for: mask) { try await answerIdle(late, write: write) }
                return true
            }
            try await answerIdle(ready, write: write)
            return true
        case .line(let line):
            return try await handle(line: line, write: write)
        }
    }

    private mutating func handle(line: ByteBuffer, write: (ByteBuffer) async throws -> Void) async throws -> Bool {
        switch framer.consume(line.readableBytesView, isIdle: idleMask != nil) {
        case .close(let reason):
            logger.info("closing connection: \(reason)")
            return false
        case .collect:
            return true
        case .noidle:
            guard idleMask != nil else { return true }
            inbox.cancelWaiting()
            idleMask = nil
            control.setIdling(false)
            try await write(ByteBuffer(string: "OK\n"))
            return true
        case .execute(let bytes):
            var response = ResponseBuffer()
            let result = await dispatcher.run(bytes, index: 0, session: &session, response: &response)
            if result == .ok { response.appendRaw("OK\n") }
            return try await finish(result, response: response, write: write)
        case .executeList(let lines, let okMode):
            var response = ResponseBuffer()
            for (index, line) in lines.enumerated() {
                let result = await dispatcher.run(line, index: index, session: &session, response: &response)
                guard result == .ok else { return try await finish(result, response: response, write: write) }
                if okMode { response.appendRaw("list_OK\n") }
            }
            response.appendRaw("OK\n")
            try await write(response.bytes)
            return true
        }
    }

    /// Writes a command's response and carries out what its result asks for.
    private mutating func finish(
        _ result: CommandDispatcher.Result,
        response: ResponseBuffer,
        write: (ByteBuffer) async throws -> Void
    ) async throws -> Bool {
        if response.count > 0 { try await write(response.bytes) }
        switch result {
        case .ok, .failed:
            return true
        case .close:
            return false
        case .idle(let mask):
            if let ready = inbox.beginWaiting(for: mask) {
                try await answerIdle(ready, write: write)
            } else {
                idleMask = mask
                control.setIdling(true)
            }
            return true
        }
    }

    private mutating func answerIdle(_ subsystems: IdleSubsystems, write: (ByteBuffer) async throws -> Void) async throws {
        var response = ResponseBuffer()
        for name in subsystems.memberNames { response.append("changed", name) }
        response.appendRaw("OK\n")
        if idleMask != nil {
            idleMask = nil
            control.setIdling(false)
        }
        try await write(response.bytes)
    }
}
