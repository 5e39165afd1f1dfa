import NIOCore

/// The last handler of a connection's pipeline: hands its ``SessionInput`` to the session's
/// task and carries the answers back.
///
/// The session's task runs on this channel's event loop (``EventLoopTaskExecutor``), so both
/// ends of the bridge are on one thread and it needs no lock. It replaced `NIOAsyncChannel`,
/// whose inbound sequence and outbound writer are built for a reader on another thread: a
/// lock, a state machine and an unspecialised generic buffer on each side took about a fifth
/// of the event loop's time for every `ping` (docs/benchmarks.md).
///
/// Backpressure both ways, as before: the bridge holds back the channel's `read` while
/// ``highWatermark`` inputs wait for the session, and a write waits while the client's unread
/// output is above the channel's high water mark (`max_output_buffer_size`). Connections allow
/// half-closure (``ListenerBinder``): the client's end of input ends the session's input, and
/// the lines before it are still answered.
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
    private var reader: UnsafeContinuation<SessionInput?, any Error>?
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
        if let reader, let first = popQueued() {
            // The session waits: it gets the first line directly. Its task resumes after the
            // loop has handled this read, so the batch's later lines are queued by then.
            self.reader = nil
            reader.resume(returning: first)
        }
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
        // As NIOAsyncChannel's inbound stream did: the lines before the error are still
        // handled, then the session sees the error (an overlong line closes unanswered).
        endInput(error: error)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { resumeWriter(throwing: nil) }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if queued >= Self.highWatermark {
            readHeldBack = true
        } else {
            context.read()
        }
    }

    /// The next input, waiting for it if none is queued.
    ///
    /// Runs on the caller's executor (`nonisolated(nonsending)`): the session's task is on
    /// this channel's event loop, and no executor switch is needed to get there.
    /// - Returns: `nil` once the connection has closed and every queued input was handed out.
    /// - Throws: the channel's error, after the inputs that came before it.
    nonisolated(nonsending) func next() async throws -> SessionInput? {
        if let input = nextQueued() { return input }
        if inputEnded {
            if let error {
                self.error = nil
                throw error
            }
            return nil
        }
        // Answers held back while more input was queued go out before the session waits.
        flush()
        return try await withUnsafeThrowingContinuation { continuation in
            reader = continuation
        }
    }

    /// The next input if one is queued, without waiting: the lines of a read are taken one
    /// after another with no suspension between them.
    func nextQueued() -> SessionInput? {
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
    ///
    /// The write is flushed at once unless more input is queued: the answers to lines a client
    /// sent together go out together, in one system call, before the session waits for input.
    /// - Throws: `ChannelError.ioOnClosedChannel` once the connection is closed.
    nonisolated(nonsending) func write(_ buffer: ByteBuffer) async throws {
        guard let context, context.channel.isActive else { throw ChannelError.ioOnClosedChannel }
        unflushedBytes += buffer.readableBytes
        context.write(wrapOutboundOut(buffer), promise: nil)
        if queued == 0 || unflushedBytes >= Self.flushThreshold { flush() }
        while !context.channel.isWritable {
            flush()
            try await withUnsafeThrowingContinuation { continuation in
                writer = continuation
            }
            guard self.context != nil, context.channel.isActive else { throw ChannelError.ioOnClosedChannel }
        }
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

    private func endInput(error: (any Error)?) {
        guard !inputEnded else { return }
        inputEnded = true
        self.error = error
        guard let reader else { return }
        self.reader = nil
        if let error {
            self.error = nil
            reader.resume(throwing: error)
        } else {
            reader.resume(returning: nil)
        }
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

    /// The next input; `nil` once the connection has closed (``SessionBridge/next()``).
    nonisolated(nonsending) func next() async throws -> SessionInput? {
        try await bridge.value.next()
    }

    /// The next input if one is queued (``SessionBridge/nextQueued()``).
    func nextQueued() -> SessionInput? {
        bridge.value.nextQueued()
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
