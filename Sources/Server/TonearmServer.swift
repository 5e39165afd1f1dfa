package import Logging
import MPDProtocol
package import NIOCore
import NIOPosix
import ServiceLifecycle
import Settings
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The MPD-protocol server: listens on every configured address and serves each client in its
/// own session until shutdown.
package final class TonearmServer: Service {
    /// The services the sessions share.
    package let context: ServerContext
    private let logger: Logger
    private let eventLoopGroup: any EventLoopGroup
    private let registry: ConnectionRegistry
    private let binder: ListenerBinder
    private let listeners: ListenerSet
    private let boundAddresses = Mutex<[SocketAddress]>([])
    private let onListening: @Sendable (_ tcpPorts: [Int]) -> Void

    /// Creates the server around a context made by whoever puts it together (`tonearm`);
    /// `kill` from a client stops it the way a signal does.
    /// - Parameters:
    ///   - context: the parts every session shares, its configuration among them.
    ///   - eventLoopGroup: the loops that run the sockets.
    ///   - onListening: called once every listener accepts connections, with the TCP ports among
    ///     them (the real ones, also with `--port 0`; none for Unix sockets): for `READY=1`, and
    ///     what Zeroconf announces.
    package init(
        context: ServerContext,
        logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        onListening: @escaping @Sendable (_ tcpPorts: [Int]) -> Void = { _ in }
    ) {
        let registry = ConnectionRegistry(limit: context.configuration.maxConnections)
        let listeners = ListenerSet()
        self.context = context
        self.registry = registry
        self.listeners = listeners
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
        self.onListening = onListening
        binder = ListenerBinder(configuration: context.configuration, eventLoopGroup: eventLoopGroup)
        context.onShutdownRequest {
            listeners.closeAll()
            registry.closeAll()
        }
    }

    /// The addresses the server listens on, once ``run()`` has bound them.
    package var localAddresses: [SocketAddress] { boundAddresses.withLock { $0 } }

    /// Binds every listener, then serves until graceful shutdown or ``stop()``.
    /// - Throws: when a listener cannot be bound.
    package func run() async throws {
        for address in HostPermissionMatcher.unreadableEntries(in: context.configuration) {
            logger.warning("host_permissions entry ignored, not an IP address or network: \(address)")
        }
        let bound = try await binder.bindAll()
        listeners.set(bound.map { $0.channel.channel })
        for listener in bound {
            if let address = listener.channel.channel.localAddress {
                boundAddresses.withLock { $0.append(address) }
                if case .inherited(let socket) = listener.address {
                    logger.notice("Listening on \(address.displayString) (socket activation, \(socket.label))")
                } else {
                    logger.notice("Listening on \(address.displayString)")
                }
            }
        }
        // A Unix socket's address has no port, configured or passed by systemd.
        onListening(bound.compactMap { listener in listener.channel.channel.localAddress?.port })
        let session = ClientSession(server: context, registry: registry, logger: logger)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for listener in bound {
                    // The accepting task runs on its listener's event loop, where NIO hands it
                    // each connection: on Swift's global executor every connection crossed to
                    // a pool thread and back to a loop before its greeting.
                    group.addTask(executorPreference: EventLoopTaskExecutor(listener.channel.channel.eventLoop)) {
                        do {
                            try await listener.channel.executeThenClose { inbound in
                                try await withThrowingDiscardingTaskGroup { connections in
                                    for try await connection in inbound {
                                        let executor = EventLoopTaskExecutor(connection.channel.eventLoop)
                                        connections.addTask(executorPreference: executor) {
                                            await session.run(connection)
                                        }
                                    }
                                }
                            }
                        } catch {
                            self.logger.error("listener failed: \(error)")
                        }
                        if case .unixSocket(let path) = listener.address { unlink(path) }
                    }
                }
            }
        } onGracefulShutdown: {
            self.stop()
        }
        logger.notice("server stopped")
    }

    /// Stops listening and closes every client connection; ``run()`` then returns.
    package func stop() {
        context.requestShutdown()
    }
}
