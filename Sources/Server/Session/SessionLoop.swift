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

    /// What is left of a step for ``handleSuspending(_:write:)``: a command whose handler is
    /// asynchronous, looked up and checked already, the invocation holding its name and
    /// arguments (``CommandDispatcher/SynchronousRun/suspends(_:)``).
    enum PendingStep: Sendable {
        /// A command on a line of its own.
        case command(CommandDefinition)
        /// A command list from its line `from` on, that line's command being `command`: the
        /// lines before it ran in ``handleImmediately(_:)``, their answers wait in the
        /// response, and the idle bus still holds the list's changes
        /// (``IdleBus/beginCommandList()``).
        case listRemainder(CommandListLines, okMode: Bool, from: Int, command: CommandDefinition)
    }

    /// What ``handleImmediately(_:)`` did with a step.
    enum Handling {
        /// The step is done, its answer waits in ``takeAnswer()``; `false` when the connection
        /// must be closed.
        case handled(keepOpen: Bool)
        /// What is left of the step needs ``handleSuspending(_:write:)``.
        case needsTask(PendingStep)
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

    /// Handles one input: ``frame(_:)``, then ``handleImmediately(_:)`` or, when that cannot,
    /// ``handleSuspending(_:write:)``.
    /// - Parameter write: sends bytes to the client, waiting while its buffer is full.
    /// - Returns: `false` when the connection must be closed.
    nonisolated(nonsending) package mutating func handle(
        _ input: SessionInput,
        write: nonisolated(nonsending) (ByteBuffer) async throws -> Void
    ) async throws -> Bool {
        guard let step = frame(input) else { return true }
        switch handleImmediately(step) {
        case .handled(let keepOpen):
            let answer = takeAnswer()
            if answer.readableBytes > 0 { try await write(answer) }
            return keepOpen
        case .needsTask(let rest):
            return try await handleSuspending(rest, write: write)
        }
    }

    /// Carries out what of a framed step needs no suspension: an idle wake-up, `noidle`, a
    /// close, a command whose handler is synchronous (``CommandDefinition/synchronousHandler``)
    /// or is answered by an `ACK` before it runs, and a command list up to its first command
    /// with an asynchronous handler. Its answer waits in ``takeAnswer()``.
    ///
    /// The connection's ``SessionBridge`` runs these as their lines arrive, on the event loop,
    /// without resuming the session's task, which cost the server a sixth of its CPU for a
    /// `ping` after a pause (docs/benchmarks.md).
    mutating func handleImmediately(_ step: Step) -> Handling {
        switch step {
        case .idleWake:
            guard let mask = idleMask else { return .handled(keepOpen: true) }
            let ready = inbox.collect(mask)
            if ready.isEmpty {
                // A wake-up that belonged to an earlier idle: keep waiting.
                if let late = inbox.beginWaiting(for: mask) { answerIdle(late) }
                return .handled(keepOpen: true)
            }
            answerIdle(ready)
            return .handled(keepOpen: true)
        case .line(.close(let reason)):
            logger.info("closing connection: \(reason)")
            return .handled(keepOpen: false)
        case .line(.collect):
            return .handled(keepOpen: true)
        case .line(.noidle):
            guard idleMask != nil else { return .handled(keepOpen: true) }
            inbox.cancelWaiting()
            idleMask = nil
            control.setIdling(false)
            invocation.response.appendConstant("OK\n")
            return .handled(keepOpen: true)
        case .line(.execute(let bytes)):
            switch dispatcher.runSynchronously(bytes[...], index: 0, invocation: &invocation) {
            case .done(let result): return .handled(keepOpen: conclude(result))
            case .suspends(let command): return .needsTask(.command(command))
            }
        case .line(.executeList(let lines, let okMode)):
            // One change to the idle clients, however many commands of the list changed things.
            server.idleBus.beginCommandList()
            for index in lines.indices {
                switch dispatcher.runSynchronously(lines[index], index: index, invocation: &invocation) {
                case .suspends(let command):
                    return .needsTask(.listRemainder(lines, okMode: okMode, from: index, command: command))
                case .done(let result):
                    if let keepOpen = listLineDone(result, okMode: okMode) {
                        server.idleBus.endCommandList()
                        return .handled(keepOpen: keepOpen)
                    }
                }
            }
            server.idleBus.endCommandList()
            invocation.response.appendConstant("OK\n")
            return .handled(keepOpen: true)
        }
    }

    /// The answer ``handleImmediately(_:)`` left, to be written; empty when there is none.
    mutating func takeAnswer() -> ByteBuffer {
        invocation.response.take()
    }

    /// Carries out what ``handleImmediately(_:)`` left, suspending where it must: a command's
    /// asynchronous handler, and a write while the client's buffer is full.
    ///
    /// `nonisolated(nonsending)`, as is the dispatcher's `run`: they stay on the caller's
    /// executor, the connection's event loop, where a plain nonisolated async function would
    /// go through an executor switch (which reads the task's preferred executor under its
    /// status lock) on every call and return, several times per command.
    /// - Parameter write: sends bytes to the client, waiting while its buffer is full.
    /// - Returns: `false` when the connection must be closed.
    nonisolated(nonsending) mutating func handleSuspending(
        _ step: PendingStep,
        write: nonisolated(nonsending) (ByteBuffer) async throws -> Void
    ) async throws -> Bool {
        let keepOpen: Bool
        switch step {
        case .command(let command):
            keepOpen = conclude(await dispatcher.runPrepared(command, index: 0, invocation: &invocation))
        case .listRemainder(let lines, let okMode, let index, let command):
            keepOpen = await executeList(lines, okMode: okMode, from: index, command: command)
        }
        let answer = takeAnswer()
        if answer.readableBytes > 0 { try await write(answer) }
        return keepOpen
    }

    /// Runs a command list's lines from `first` on (its command prepared as `command`), each as
    /// ``CommandDispatcher`` runs a line, leaves the answer in the response, and ends the list's
    /// ``IdleBus/beginCommandList()``.
    nonisolated(nonsending) private mutating func executeList(
        _ lines: CommandListLines, okMode: Bool, from first: Int, command: CommandDefinition
    ) async -> Bool {
        defer { server.idleBus.endCommandList() }
        let result = await dispatcher.runPrepared(command, index: first, invocation: &invocation)
        if let keepOpen = listLineDone(result, okMode: okMode) { return keepOpen }
        for index in lines.indices[(first + 1)...] {
            let result = await dispatcher.run(lines[index], index: index, invocation: &invocation)
            if let keepOpen = listLineDone(result, okMode: okMode) { return keepOpen }
        }
        invocation.response.appendConstant("OK\n")
        return true
    }

    /// Ends a list's line: `list_OK` in `command_list_ok_begin` after a success; after a
    /// failure, the list's end (``conclude(_:)``).
    /// - Returns: `nil` when the list goes on, else whether the connection stays open.
    private mutating func listLineDone(_ result: CommandDispatcher.Result, okMode: Bool) -> Bool? {
        guard result == .ok else { return conclude(result) }
        if okMode { invocation.response.appendConstant("list_OK\n") }
        return nil
    }

    /// Ends a command's answer as its result asks: `OK`, nothing more after an `ACK`, or the
    /// start of an idle (answered at once when an event is already waiting).
    /// - Returns: `false` when the connection must be closed.
    private mutating func conclude(_ result: CommandDispatcher.Result) -> Bool {
        switch result {
        case .ok:
            invocation.response.appendConstant("OK\n")
            return true
        case .failed:
            return true
        case .close:
            return false
        case .idle(let mask):
            if let ready = inbox.beginWaiting(for: mask) {
                answerIdle(ready)
            } else {
                idleMask = mask
                control.setIdling(true)
            }
            return true
        }
    }

    /// Appends the answer to an idle: the subsystems that changed.
    private mutating func answerIdle(_ subsystems: IdleSubsystems) {
        for name in subsystems.memberNames { invocation.response.append("changed", name) }
        invocation.response.appendConstant("OK\n")
        if idleMask != nil {
            idleMask = nil
            control.setIdling(false)
        }
    }
}
