import Logging
import ServiceLifecycle
import Zeroconf

/// `zeroconf_enabled "yes"`: announces the server as `_mpd._tcp` once its listeners are bound,
/// on the first TCP port among them, and withdraws the announcement on graceful shutdown.
/// Avahi runs on a thread of its own; this service never waits for it.
struct ZeroconfService: Service, CustomStringConvertible {
    let name: ZeroconfServiceName
    /// Yields the server's TCP ports once it listens (``TonearmServer``'s `onListening`).
    let listening: AsyncStream<[Int]>
    let logger: Logger

    /// The name ServiceLifecycle logs.
    var description: String { "Zeroconf" }

    /// A stream for the server's `onListening` and the callback that feeds it.
    static func listeningStream() -> (AsyncStream<[Int]>, @Sendable ([Int]) -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: [Int].self, bufferingPolicy: .bufferingNewest(1))
        return (
            stream,
            { ports in
                continuation.yield(ports)
                continuation.finish()
            }
        )
    }

    func run() async throws {
        var publisher: ZeroconfPublisher?
        // Ends without ports when the group shuts down (or the server failed) before binding.
        for await ports in listening.cancelOnGracefulShutdown() {
            // As MPD: Unix sockets are not announced; with several TCP listeners, the first.
            guard let port = ports.first, let port = UInt16(exactly: port) else {
                logger.notice("Zeroconf: no TCP listener, nothing to announce")
                break
            }
            publisher = ZeroconfPublisher(name: name, port: port, logger: logger)
            if publisher == nil { logger.error("Zeroconf: cannot set up Avahi; the server is not announced") }
            publisher?.start()
        }
        // Returning early would end the whole group; wait for the shutdown either way.
        try? await gracefulShutdown()
        publisher?.stop()
    }
}
