import NIOCore

/// The last handler of a connection's pipeline: holds the connection's ``SessionLoop``, runs
/// what needs no suspension as the input arrives, and hands the rest to the session's task.
///
/// A line whose command has a synchronous handler, a command list of such commands, an idle
/// wake-up, `noidle`: these are answered here, on the event loop, in the read that brought them
/// (``SessionLoop/handleImmediately(_:)``). A command with an asynchronous handler, and the rest
/// of a list from such a command on, go to the session's task, which waits in ``nextStep()``;
/// while it carries one out, the input behind it waits here, so that the session still handles
/// its input strictly in order. Resuming the task for every line cost the server a sixth of its
/// CPU for a `ping` after a pause (docs/benchmarks.md).
///
/// The session's task runs on this channel's event loop (``EventLoopTaskExecutor``), so both
/// ends of the bridge are on one thread and it needs no lock. It replaced `NIOAsyncChannel`,
/// whose inbound sequence and outbound writer are built for a reader on another thread.
///
/// Backpressure both ways: the bridge holds back the channel's `read` while ``highWatermark``
/// inputs wait, and stops handling input while the client's unread output is above the
/// channel's high water mark (`max_output_buffer_size`). Connections allow half-closure
/// (``ListenerBinder``): the client's end of input ends the session's input, and the lines
/// before it are still answered.
final class SessionBridge: ChannelDuplexHandler {
    typealias InboundIn = [SessionInput]
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Inputs waiting before the bridge stops asking the socket for more.
    static let highWatermark = 16
    /// Inputs left waiting when the bridge asks again.
    static let lowWatermark = 4
    /// Unflushed output that is flushed even while more input waits (a long answer's page).
    static let flushThreshold = 16 * 1024

    private var context: ChannelHandlerContext?
    /// The session, once its task has begun it (``begin(_:)``).
    private var session: SessionLoop?
    /// The batch of inputs being handed out, from ``position`` on, and the batches after it,
    /// as the input handler passed them on: a batch is queued whole, not line by line.
    private var current: [SessionInput] = []
    private var position = 0
    private var later = CircularBuffer<[SessionInput]>(initialCapacity: 4)
    /// How many inputs wait in ``current`` and ``later``.
    private var queued = 0
    /// Set once no input will follow what is queued: the channel closed, or failed with `error`.
    private var inputEnded = false
    private var error: (any Error)?
    /// Set once the session asked for the connection to close.
    private var closing = false
    /// Set while ``poll()`` handles input.
    private var polling = false
    /// The session's task, waiting for a step only it can carry out.
    private var reader: UnsafeContinuation<SessionLoop.PendingStep?, any Error>?
    private var writer: UnsafeContinuation<Void, any Error>?
    private var readHeldBack = false
    private var unflushedBytes = 0

    /// Creates the bridge; it is added to the pipeline last.
    init() {}

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        endInput(error: nil)
        self.context = nil
        resumeWriter(throwing: ChannelError.ioOnClosedChannel)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let batch = unwrapInboundIn(data)
        guard !batch.isEmpty else { return }
        if queued == 0 {
            current = batch
            position = 0
        } else {
            later.append(batch)
        }
        queued += batch.count
        resumeReader()
    }

    func channelInactive(context: ChannelHandlerContext) {
        endInput(error: nil)
        resumeWriter(throwing: ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client shut down its side: the lines it sent are still answered, then the
        // session ends and closes the connection.
        if let event = event as? ChannelEvent, event == .inputClosed { endInput(error: nil) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The lines before the error are still handled, then the session sees the error (an
        // overlong line closes unanswered).
        endInput(error: error)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            resumeWriter(throwing: nil)
            // Input held back while the client did not read goes on being handled.
            resumeReader()
        }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if queued >= Self.highWatermark {
            readHeldBack = true
        } else {
            context.read()
        }
    }

    /// Hands the session to the bridge; its task then asks for steps (``nextStep()``).
    func begin(_ session: consuming SessionLoop) {
        self.session = session
    }

    /// Takes the session back once its task is done with it.
    func end() -> SessionLoop? {
        defer { session = nil }
        return session
    }

    /// Handles the queued input that needs no suspension, and returns the first step that
    /// does, waiting for input if none is queued.
    ///
    /// Runs on the caller's executor (`nonisolated(nonsending)`): the session's task is on
    /// this channel's event loop, and no executor switch is needed to get there.
    /// - Returns: `nil` once the connection is to close: it closed, the session asked for it,
    ///   or the client's input ended and every queued input was handled.
    /// - Throws: the channel's error, after the inputs that came before it.
    nonisolated(nonsending) func nextStep() async throws -> SessionLoop.PendingStep? {
        switch poll() {
        case .step(let step): return step
        case .end: return nil
        case .failed(let error): throw error
        case .wait: break
        }
        // Answers held back while more input was queued go out before the session waits.
        flush()
        return try await withUnsafeThrowingContinuation { continuation in
            reader = continuation
        }
    }

    /// Carries out a step ``nextStep()`` returned, in the session's task.
    /// - Returns: `false` when the connection must be closed.
    nonisolated(nonsending) func perform(_ step: SessionLoop.PendingStep) async throws -> Bool {
        guard session != nil else { return false }
        return try await session!.handleSuspending(step) { try await self.write($0) }
    }

    /// What ``poll()`` found.
    private enum Poll {
        /// A step for the session's task.
        case step(SessionLoop.PendingStep)
        /// The session is over.
        case end
        /// The session is over because the input failed.
        case failed(any Error)
        /// Nothing to do until more input arrives, or the client reads its output.
        case wait
    }

    /// Handles queued inputs until one needs the session's task, the queue is empty, or the
    /// client's unread output is over the limit.
    private func poll() -> Poll {
        guard session != nil, !polling else { return .wait }
        // A command may close this very connection while it runs (`kill` closes them all):
        // NIO then calls back into this handler, which must not handle input again meanwhile.
        polling = true
        defer { polling = false }
        while !closing, let context, context.channel.isActive {
            guard context.channel.isWritable else { return .wait }
            guard let input = nextQueued() else { break }
            guard let step = session?.frame(input), let handling = session?.handleImmediately(step) else { continue }
            switch handling {
            case .needsTask(let rest):
                return .step(rest)
            case .handled(let keepOpen):
                if let answer = session?.takeAnswer(), answer.readableBytes > 0 { write(answer, into: context) }
                if !keepOpen { closing = true }
            }
        }
        if closing || context?.channel.isActive != true { return .end }
        guard inputEnded, queued == 0 else { return .wait }
        guard let error else { return .end }
        self.error = nil
        return .failed(error)
    }

    /// Gives the waiting session's task the next step it must carry out, if there is one, and
    /// handles the input before it.
    private func resumeReader() {
        guard let reader, !polling else { return }
        let next = poll()
        if case .wait = next {
            flush()
            return
        }
        self.reader = nil
        switch next {
        case .step(let step): reader.resume(returning: step)
        case .end: reader.resume(returning: nil)
        case .failed(let error): reader.resume(throwing: error)
        case .wait: break
        }
    }

    /// The next input if one is queued, without waiting.
    private func nextQueued() -> SessionInput? {
        guard let input = popQueued() else { return nil }
        if readHeldBack, queued <= Self.lowWatermark, let context {
            readHeldBack = false
            context.read()
        }
        return input
    }

    private func popQueued() -> SessionInput? {
        guard queued > 0 else { return nil }
        if position == current.count {
            current = later.removeFirst()
            position = 0
        }
        let input = current[position]
        position += 1
        queued -= 1
        // The lines share their read's buffer: the batch is let go once handed out.
        if queued == 0 { (current, position) = ([], 0) }
        return input
    }

    /// Writes `buffer`, and waits while the client's unread output is over the limit.
    /// - Throws: `ChannelError.ioOnClosedChannel` once the connection is closed.
    nonisolated(nonsending) func write(_ buffer: ByteBuffer) async throws {
        guard let context, context.channel.isActive else { throw ChannelError.ioOnClosedChannel }
        write(buffer, into: context)
        while !context.channel.isWritable {
            flush()
            try await withUnsafeThrowingContinuation { continuation in
                writer = continuation
            }
            guard self.context != nil, context.channel.isActive else { throw ChannelError.ioOnClosedChannel }
        }
    }

    /// Writes `buffer`, flushed at once unless more input is queued: the answers to lines a
    /// client sent together go out together, in one system call.
    private func write(_ buffer: ByteBuffer, into context: ChannelHandlerContext) {
        unflushedBytes += buffer.readableBytes
        context.write(wrapOutboundOut(buffer), promise: nil)
        if queued == 0 || unflushedBytes >= Self.flushThreshold { flush() }
    }

    /// Sends what was written and closes the connection.
    func close() {
        flush()
        context?.close(promise: nil)
    }

    private func flush() {
        guard unflushedBytes > 0, let context else { return }
        unflushedBytes = 0
        context.flush()
    }

    /// Records that no input follows what is queued, and lets a waiting session's task see it
    /// once that input is handled; again when the channel closes, which also ends a session
    /// waiting for its client to read.
    private func endInput(error: (any Error)?) {
        if !inputEnded {
            inputEnded = true
            self.error = error
        }
        resumeReader()
    }

    private func resumeWriter(throwing error: (any Error)?) {
        guard let writer else { return }
        self.writer = nil
        if let error { writer.resume(throwing: error) } else { writer.resume() }
    }
}

@available(*, unavailable)
extension SessionBridge: Sendable {}

/// The session task's handle on its connection's ``SessionBridge``.
///
/// Sendable so that a long answer's pages can be written through it (``ResponseStream``); each
/// use checks that it runs on the connection's event loop, where the session's task runs.
struct SessionIO: Sendable {
    private let bridge: NIOLoopBound<SessionBridge>

    /// Wraps a bridge that lives on `eventLoop`.
    init(_ bridge: SessionBridge, eventLoop: any EventLoop) {
        self.bridge = NIOLoopBound(bridge, eventLoop: eventLoop)
    }

    /// Hands the session to the bridge (``SessionBridge/begin(_:)``).
    func begin(_ session: consuming SessionLoop) {
        bridge.value.begin(session)
    }

    /// Takes the session back once its task is done with it.
    func end() -> SessionLoop? {
        bridge.value.end()
    }

    /// The next step for the session's task; `nil` once the connection is to close
    /// (``SessionBridge/nextStep()``).
    nonisolated(nonsending) func nextStep() async throws -> SessionLoop.PendingStep? {
        try await bridge.value.nextStep()
    }

    /// Carries out a step in the session's task (``SessionBridge/perform(_:)``).
    nonisolated(nonsending) func perform(_ step: SessionLoop.PendingStep) async throws -> Bool {
        try await bridge.value.perform(step)
    }

    /// Writes bytes to the client (``SessionBridge/write(_:)``).
    nonisolated(nonsending) func write(_ buffer: ByteBuffer) async throws {
        try await bridge.value.write(buffer)
    }

    /// Sends what was written and closes the connection.
    func close() {
        bridge.value.close()
    }
}
