package import Logging
import MPDProtocol
import MusicModel
package import NIOCore
import Settings

/// The state machine of one session: framing, idle, and running commands. A connection runs
/// one (``ClientSession``); so does the tests' in-process client.
package struct SessionLoop {
    private let server: ServerContext
    private let control: SessionControl
    private let dispatcher: CommandDispatcher
    private let inbox: IdleInbox
    private let logger: Logger
    private var session: SessionState
    private var framer: RequestFramer
    /// The subsystems the client waits for while it idles; `nil` when it does not.
    private var idleMask: IdleSubsystems?

    /// Creates the session and registers it with the idle bus and the message channels.
    /// - Parameters:
    ///   - control: the handle on the connection's input handler (``SessionChannel``).
    ///   - output: where a long response is sent page by page; without it, it is collected
    ///     whole.
    package init(
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
    package var state: SessionState { session }

    /// Disconnects from the idle bus and from the message channels.
    package func finish() {
        server.idleBus.unregister(inbox)
        if let mailbox = session.mailbox { server.channels.close(mailbox) }
        if session.countsPlays { server.playCountingClients.leave() }
    }

    /// Handles one input.
    ///
    /// `nonisolated(nonsending)`, as are the steps below and the dispatcher's `run`: they stay
    /// on the caller's executor, the connection's event loop, where a plain nonisolated async
    /// function would go through an executor switch (which reads the task's preferred executor
    /// under its status lock) on every call and return, several times per command.
    /// - Parameter write: sends bytes to the client, waiting while its buffer is full.
    /// - Returns: `false` when the connection must be closed.
    nonisolated(nonsending) package mutating func handle(
        _ input: SessionInput,
        write: nonisolated(nonsending) (ByteBuffer) async throws -> Void
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

    nonisolated(nonsending) private mutating func handle(
        line: ByteBuffer, write: nonisolated(nonsending) (ByteBuffer) async throws -> Void
    ) async throws -> Bool {
        let isIdle = idleMask != nil
        switch line.withUnsafeReadableBytes({ framer.consume($0, isIdle: isIdle) }) {
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
            // One change to the idle clients, however many commands of the list changed things.
            server.idleBus.beginCommandList()
            defer { server.idleBus.endCommandList() }
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
    nonisolated(nonsending) private mutating func finish(
        _ result: CommandDispatcher.Result,
        response: ResponseBuffer,
        write: nonisolated(nonsending) (ByteBuffer) async throws -> Void
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

    nonisolated(nonsending) private mutating func answerIdle(
        _ subsystems: IdleSubsystems, write: nonisolated(nonsending) (ByteBuffer) async throws -> Void
    )
        async throws
    {
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
