import Glibc
import NIOCore
import NIOHTTP1
import NIOPosix

/// The listening socket of one `httpd` output, on the event loops the MPD server runs on
/// (`MultiThreadedEventLoopGroup.singleton`, one loop per core): listeners are sockets like
/// clients, so they share the server's loops instead of adding threads of their own.
///
/// Requests are parsed by NIOHTTP1. The response is MPD's: `HTTP/1.1 200 OK` with no length
/// and no chunking (the encoder is told not to frame the body), the stream's bytes as they
/// come, `Connection: close`.
enum HTTPStreamServer {
    /// Binds `host` (all addresses when nil, IPv6 and IPv4) on `port` and serves `hub` there.
    ///
    /// It waits for the bind, so it must not run on an event loop; it runs when the
    /// configuration is read. A port in use is MPD's error: `Failed to bind to '…': …`.
    static func bind(host: String?, port: Int, hub: HTTPStreamHub) throws(OutputError) -> any Channel {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 16)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            // A fixed send buffer instead of the kernel's autotuned one (up to 4 MiB): enough
            // for a 192 kHz stream across a slow network, and small enough that a listener
            // that stops reading falls behind the ring's limit within seconds.
            .childChannelOption(.socketOption(.so_sndbuf), value: 256 * 1024)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 64 * 1024))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // `max_clients`: MPD accepts the connection and closes it at once, without
                    // an answer.
                    guard hub.admit() else {
                        channel.close(promise: nil)
                        return
                    }
                    var encoder = HTTPResponseEncoder.Configuration()
                    encoder.automaticallySetFramingHeaders = false
                    do {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                            withPipeliningAssistance: false, withErrorHandling: true,
                            withEncoderConfiguration: encoder)
                        try channel.pipeline.syncOperations.addHandler(
                            HTTPListenerHandler(hub: hub, allocator: channel.allocator))
                    } catch {
                        hub.leave()
                        throw error
                    }
                }
            }
        let hosts = host.map { [$0] } ?? ["::", "0.0.0.0"]
        var failure: (any Error)?
        for candidate in hosts {
            do {
                return try bootstrap.bind(host: candidate, port: port).wait()
            } catch {
                failure = failure ?? error
            }
        }
        let shown = host ?? "0.0.0.0"
        let reason: String
        if let failure = failure as? IOError {
            reason = String(cString: strerror(failure.errnoCode))
        } else {
            reason = failure.map { "\($0)" } ?? "unknown error"
        }
        throw OutputError("Failed to bind to '\(shown):\(port)': \(reason)")
    }
}
