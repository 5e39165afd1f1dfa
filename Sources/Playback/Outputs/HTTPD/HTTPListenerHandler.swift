import NIOCore
import NIOHTTP1

/// One listener's connection: answers its request as MPD's `httpd` output does, then sends it
/// the stream from the ``HTTPStreamHub`` at its own pace.
///
/// It lives on its channel's event loop and never blocks it: every 100 ms (and whenever the
/// socket drains) it copies what is new, at most 64 KiB, while the socket takes more. A
/// listener that stops reading stops taking; once the output thread has written more than the
/// hub's limit past its position it is closed, and nobody else notices.
final class HTTPListenerHandler: ChannelInboundHandler, RemovableChannelHandler {
    /// The request, parsed by NIOHTTP1's decoder.
    typealias InboundIn = HTTPServerRequestPart
    /// The response: a head, then the stream as body parts the encoder does not frame.
    typealias OutboundOut = HTTPServerResponsePart

    /// How often a listener looks for new data. Players buffer seconds, so a tenth of a
    /// second costs them nothing, while each look costs a wake-up of the loop: at 20 ms, 20
    /// listeners of an MP3 stream took 1.4 s of CPU a minute more than one listener did.
    /// A tenth of a second of 192 kHz 32-bit stereo (150 KiB) stays well within the ring's
    /// limit.
    static let interval = TimeAmount.milliseconds(100)
    /// The most one look copies.
    static let pullSize = 64 * 1024

    private let hub: HTTPStreamHub
    private var cursor = ListenerCursor()
    private var streaming = false
    private var timer: Scheduled<Void>?
    private var buffer: ByteBuffer
    /// For a listener that asked for ICY metadata: the interval, the audio bytes sent since
    /// the last block, and the version of the last block sent.
    private var icy: (interval: Int, fill: Int, version: UInt64)?

    /// A handler for a connection `hub` admitted.
    init(hub: HTTPStreamHub, allocator: ByteBufferAllocator) {
        self.hub = hub
        buffer = allocator.buffer(capacity: Self.pullSize)
    }

    /// Answers the request's head as MPD does (the stream, a 404 for the paths crawlers ask
    /// for, a close for methods other than GET and HEAD) and starts sending; what follows the
    /// first request is ignored, as MPD reads no further.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(let request) = unwrapInboundIn(data), !streaming else { return }
        guard request.method == .GET || request.method == .HEAD else {
            // MPD answers nothing but GET and HEAD: it closes.
            context.close(promise: nil)
            return
        }
        if Self.isRejected(path: request.uri) {
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain")
            headers.add(name: "Connection", value: "close")
            // MPD's reason phrase, in its lower case.
            let status = HTTPResponseStatus.custom(code: 404, reasonPhrase: "not found")
            let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            var body = context.channel.allocator.buffer(capacity: 13)
            body.writeString("404 not found")
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
            return
        }
        var headers = HTTPHeaders()
        // MPD answers ICY's request header only when the encoder does not carry tags itself
        // (`metadata_supported`), and then with ICY's headers in front of its usual ones.
        if let station = hub.icy,
            request.headers.first(name: "Icy-MetaData")?.hasPrefix("1") == true
        {
            icy = (station.interval, 0, 0)
            headers.add(name: "icy-notice1", value: "<BR>This stream requires an audio player!<BR>")
            headers.add(name: "icy-notice2", value: "Tonearm, a music server for MPD's clients<BR>")
            headers.add(name: "icy-name", value: station.name)
            headers.add(name: "icy-genre", value: station.genre)
            headers.add(name: "icy-url", value: station.website)
            headers.add(name: "icy-pub", value: "1")
            headers.add(name: "icy-metaint", value: String(station.interval))
        }
        headers.add(name: "Content-Type", value: hub.contentType)
        headers.add(name: "Connection", value: "close")
        headers.add(name: "Pragma", value: "no-cache")
        headers.add(name: "Cache-Control", value: "no-cache, no-store")
        headers.add(name: "Access-Control-Allow-Origin", value: "*")
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)
        if request.method == .HEAD {
            context.writeAndFlush(wrapOutboundOut(.head(head))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
            return
        }
        streaming = true
        context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
        tick(context: context)
    }

    /// Sends more as soon as the socket drained, rather than at the next look.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if streaming, context.channel.isWritable { tick(context: context) }
        context.fireChannelWritabilityChanged()
    }

    /// Stops looking and counts the listener out of `max_clients`.
    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        streaming = false
        hub.leave()
        context.fireChannelInactive()
    }

    /// A listener whose connection failed is simply closed; the stream goes on for the others.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Sends what is new while the socket takes it, then looks again in ``interval``.
    private func tick(context: ChannelHandlerContext) {
        guard streaming else { return }
        timer?.cancel()
        var wrote = false
        while true {
            // A listener whose socket is full takes nothing, but is still checked for falling
            // too far behind.
            let room = context.channel.isWritable ? Self.pullSize : 0
            buffer.clear()
            let result = hub.pull(&cursor, maxCount: room) { bytes in buffer.writeBytes(bytes) }
            switch result {
            case .copied(let count) where count > 0:
                send(buffer, context: context)
                wrote = true
                if room > 0 { continue }
            case .copied, .idle:
                break
            case .ended:
                streaming = false
                context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
                    context.close(promise: nil)
                }
                return
            case .tooSlow:
                streaming = false
                context.close(promise: nil)
                return
            }
            break
        }
        if wrote { context.flush() }
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: Self.interval) { [self] in
            tick(context: context)
        }
    }

    /// Writes audio bytes, with an ICY metadata block after every interval for a listener
    /// that asked for them: the newest block once, then a zero length byte (no change), as
    /// MPD interleaves them.
    private func send(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        guard var state = icy else {
            context.write(wrapOutboundOut(.body(.byteBuffer(bytes))), promise: nil)
            return
        }
        var rest = bytes
        while rest.readableBytes > 0 {
            let count = min(rest.readableBytes, state.interval - state.fill)
            if let slice = rest.readSlice(length: count) {
                context.write(wrapOutboundOut(.body(.byteBuffer(slice))), promise: nil)
            }
            state.fill += count
            if state.fill == state.interval {
                var block = context.channel.allocator.buffer(capacity: 1)
                if let metadata = hub.metadata(after: state.version) {
                    block.writeBytes(metadata.block)
                    state.version = metadata.version
                } else {
                    block.writeInteger(UInt8(0))
                }
                context.write(wrapOutboundOut(.body(.byteBuffer(block))), promise: nil)
                state.fill = 0
            }
        }
        icy = state
    }

    /// The paths MPD answers with 404 rather than the stream: what browsers and crawlers ask
    /// for on their own.
    static func isRejected(path: String) -> Bool {
        let trimmed = path.hasPrefix("/") ? path.dropFirst() : Substring(path)
        return trimmed == "favicon.ico" || trimmed == "robots.txt" || trimmed == "sitemap.xml"
            || trimmed.hasPrefix(".well-known/")
    }
}
