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
    /// The client's state and the response being written, with the command being run.
    private var invocation: CommandInvocation
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
        invocation = CommandInvocation(
            command: "", arguments: [], invalidUTF8Arguments: [], session: session, response: ResponseBuffer(),
            server: server, output: output)
        self.logger = logger
        dispatcher = CommandDispatcher(table: server.commands)
        framer = RequestFramer(maximumListSize: server.configuration.maxCommandListSize)
        inbox = IdleInbox(wake: control.wake)
        server.idleBus.register(inbox)
        invocation.session.mailbox = server.channels.open(inbox: inbox)
    }

    /// The client's current state.
    package var state: SessionState { invocation.session }

    /// Disconnects from the idle bus and from the message channels.
    package func finish() {
        server.idleBus.unregister(inbox)
        if let mailbox = invocation.session.mailbox { server.channels.close(mailbox) }
        if invocation.session.countsPlays { server.playCountingClients.leave() }
    }

    /// What an input asks the session to do, once framed (``frame(_:)``).
    enum Step: Sendable {
        /// An idle event may be ready for the client.
        case idleWake
        /// What the framer made of a line.
        case line(RequestFramer.Action)
    }

    /// Frames `input` without waiting: a line that only adds to a command list being collected
    /// is taken in here, and the session's task goes on to the next queued line.
    /// - Returns: what ``handle(_:write:)`` must do, or `nil` when nothing is left to do.
    mutating func frame(_ input: SessionInput) -> Step? {
        switch input {
        case .idleWake:
            return .idleWake
        case .line(let line):
            let isIdle = idleMask != nil
            let action = line.withUnsafeReadableBytes { framer.consume($0, isIdle: isIdle) }
            if case .collect = action { return nil }
            return .line(action)
        }
    }

    /// Handles one input: ``frame(_:)`` and ``handle(_:write:)``.
    /// - Parameter write: sends bytes to the client, waiting while its buffer is full.
    /// - Returns: `false` when the connection must be closed.
    nonisolated(nonsending) package mutating func handle(
        _ input: SessionInput,
        write: nonisolated(nonsending) (ByteBuffer) async throws -> Void
    ) async throws -> Bool {
        guard let step = frame(input) else { return true }
        return try await handle(step, write: write)
    }

    /// Carries out what a framed input asks for.
    ///
    /// `nonisolated(nonsending)`, as are the steps below and the dispatcher's `run`: they stay
    /// on the caller's executor, the connection's event loop, where a plain nonisolated async
    /// function would go through an executor switch (which reads the task's preferred executor
    /// under its status lock) on every call and return, several times per command.
    /// - Parameter write: sends bytes to the client, waiting while its buffer is full.
    /// - Returns: `false` when the connection must be closed.
    nonisolated(nonsending) mutating func handle(
        _ step: Step,
        write: nonisolated(nonsending) (ByteBuffer) async throws -> Void
    ) async throws -> Bool {
        switch step {
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
        case .line(let action):
            return try await perform(action, write: write)
        }
    }

    nonisolated(nonsending) private mutating func perform(
        _ action: RequestFramer.Action, write: nonisolated(nonsending) (ByteBuffer) async throws -> Void
    ) async throws -> Bool {
        switch action {
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
            let result = await dispatcher.run(bytes[...], index: 0, invocation: &invocation)
            if result == .ok { invocation.response.appendConstant("OK\n") }
            return try await finish(result, response: invocation.response.take(), write: write)
        case .executeList(let lines, let okMode):
            // One change to the idle clients, however many commands of the list changed things.
            server.idleBus.beginCommandList()
            defer { server.idleBus.endCommandList() }
            for (index, line) in lines.enumerated() {
                let result = await dispatcher.run(line, index: index, invocation: &invocation)
                guard result == .ok else {
                    return try await finish(result, response: invocation.response.take(), write: write)
                }
                if okMode { invocation.response.appendConstant("list_OK\n") }
            }
            invocation.response.appendConstant("OK\n")
            try await write(invocation.response.take())
            return true
        }
    }

    /// Writes a command's response and carries out what its result asks for.
    nonisolated(nonsending) private mutating func finish(
        _ result: CommandDispatcher.Result,
        response: ByteBuffer,
        write: nonisolated(nonsending) (ByteBuffer) async throws -> Void
    ) async throws -> Bool {
        if response.readableBytes > 0 { try await write(response) }
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
        response.appendConstant("OK\n")
        if idleMask != nil {
            idleMask = nil
            control.setIdling(false)
        }
        try await write(response.bytes)
    }
}
