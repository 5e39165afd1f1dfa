import MPDProtocol
package import NIOCore

/// What the session loop receives: a command line from the client, or a wake-up because an
/// idle event arrived that the client waits for.
package enum SessionInput: Sendable {
    /// A complete line, without newline and trailing blanks.
    case line(ByteBuffer)
    /// An idle event arrived; the session collects it if it is still idling.
    case idleWake
}

/// The first handler of a session's pipeline: splits the client's bytes into lines
/// (``LineDecoder``), injects idle wake-ups into the same ordered stream, and enforces
/// `connection_timeout`.
///
/// Each read is passed on as one batch of ``SessionInput``s, not a message per line: a command
/// list of thousands of lines arrives in a few reads, and NIO's per-message path (a decoder
/// handler's loop, each line boxed into `NIOAny`, cast back and handed from handler to
/// handler) cost more than running a `ping` (docs/benchmarks.md).
///
/// Putting wake-ups in the inbound stream lets one task own the connection: lines and events
/// are handled strictly in arrival order, with no second reader. The timeout counts from the
/// last complete line, as MPD's does, and is suspended while the client idles. A line too long
/// for MPD's input buffer is passed on as ``LineDecoder/LineTooLong`` after the lines before
/// it, and nothing after it is read.
final class SessionInputHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = [SessionInput]

    private let timeout: TimeAmount?
    private var context: ChannelHandlerContext?
    private var lastLine = NIODeadline.now()
    /// A line arrived in the read batch being handled; ``lastLine`` is set at its end.
    private var lineArrived = false
    private var idling = false
    private var timer: Scheduled<Void>?
    private var decoder = LineDecoder()
    /// What arrived after the last complete line, if anything did.
    private var pending: ByteBuffer?
    /// Set once a line was too long: what the client sends after it is not read.
    private var refused = false

    /// Creates the handler.
    /// - Parameter timeout: the inactivity limit, or `nil` for none.
    init(timeout: TimeAmount?) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { armTimer(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        armTimer(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        var bytes = unwrapInboundIn(data)
        // Split in local variables, put back after: the fields of a class are checked for
        // exclusive access on each use, twice per line.
        var pending = bytes
        if var partial = self.pending.take() {
            partial.writeBuffer(&bytes)
            pending = partial
        }
        var decoder = self.decoder
        var lines: [SessionInput] = []
        do {
            while let line = try decoder.nextLine(&pending) { lines.append(.line(line)) }
        } catch {
            refused = true
            if !lines.isEmpty { context.fireChannelRead(wrapInboundOut(lines)) }
            context.fireErrorCaught(error)
            return
        }
        self.decoder = decoder
        if pending.readableBytes > 0 { self.pending = pending }
        guard !lines.isEmpty else { return }
        lineArrived = true
        context.fireChannelRead(wrapInboundOut(lines))
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Once per read rather than per line: the lines of one read arrived together, and a
        // command list's thousands of lines each read the clock.
        if lineArrived {
            lineArrived = false
            lastLine = .now()
        }
        context.fireChannelReadComplete()
    }

    /// Delivers a wake-up to the session. Must run on the channel's event loop.
    func wake() {
        context?.fireChannelRead(wrapInboundOut([.idleWake]))
        // Ends the read batch for the handlers that wait for its end (the tests' channel).
        context?.fireChannelReadComplete()
    }

    /// Suspends or resumes the timeout. Must run on the channel's event loop.
    ///
    /// Leaving idle restarts the clock, as MPD re-arms its timer after an idle reply.
    func setIdling(_ idling: Bool) {
        self.idling = idling
        if !idling { lastLine = .now() }
    }

    private func armTimer(context: ChannelHandlerContext) {
        guard let timeout, timer == nil else { return }
        scheduleCheck(at: lastLine + timeout, context: context, timeout: timeout)
    }

    private func scheduleCheck(at deadline: NIODeadline, context: ChannelHandlerContext, timeout: TimeAmount) {
        let loopBoundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) {
            loopBoundSelf.value.checkTimeout(timeout: timeout)
        }
    }

    private func checkTimeout(timeout: TimeAmount) {
        guard let context else { return }
        timer = nil
        let deadline = idling ? NIODeadline.now() + timeout : lastLine + timeout
        if !idling, deadline <= .now() {
            context.close(promise: nil)
            return
        }
        scheduleCheck(at: deadline, context: context, timeout: timeout)
    }
}

@available(*, unavailable)
extension SessionInputHandler: Sendable {}

/// A thread-safe handle on a connection's ``SessionInputHandler``.
package struct SessionControl: Sendable {
    private let handler: NIOLoopBound<SessionInputHandler>
    private let eventLoop: any EventLoop

    /// Wraps a handler that lives on `eventLoop`.
    init(handler: SessionInputHandler, eventLoop: any EventLoop) {
        self.handler = NIOLoopBound(handler, eventLoop: eventLoop)
        self.eventLoop = eventLoop
    }

    /// Wakes the session from any thread.
    func wake() {
        let handler = self.handler
        eventLoop.execute { handler.value.wake() }
    }

    /// Suspends or resumes the inactivity timeout from any thread.
    func setIdling(_ idling: Bool) {
        let handler = self.handler
        eventLoop.execute { handler.value.setIdling(idling) }
    }
}
