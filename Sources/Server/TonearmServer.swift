public import Configuration
public import Logging
import MPDProtocol
import MusicModel
public import NIOCore
public import NIOPosix
public import Playback
public import MediaLibrary
public import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The MPD-protocol server: listens on every configured address and serves each client in its
/// own session until shutdown.
public final class TonearmServer: Service {
    /// The services the sessions share.
    public let context: ServerContext
    private let logger: Logger
    private let eventLoopGroup: any EventLoopGroup
    private let registry: ConnectionRegistry
    private let hostPermissions: HostPermissionMatcher
    private let listeners: ListenerSet
    private let boundAddresses = Mutex<[SocketAddress]>([])
    private let onListening: @Sendable (_ tcpPorts: [Int]) -> Void
    /// The sockets systemd passed, taken when the server is made: before the state file is
    /// restored, since a restored `play` may start a pipe output, which must inherit neither
    /// the descriptors nor the variables.
    private let inherited: Result<[SocketActivation.InheritedSocket], ListenerError>

    /// Creates the server.
    /// - Parameters:
    ///   - configuration: the settings, with any command-line overrides applied.
    ///   - decoders: what the decoder plays, for `decoders`.
    ///   - library: the music database.
    ///   - stickers: the sticker database (`sticker_file`), if there is one.
    ///   - idleBus: where the rest of the server raises idle events.
    ///   - eventLoopGroup: the loops that run the sockets.
    ///   - onListening: called once every listener accepts connections, with the TCP ports among
    ///     them (the real ones, also with `--port 0`; none for Unix sockets): for `READY=1`, and
    ///     what Zeroconf announces.
    public init(
        configuration: TonearmConfiguration,
        decoders: DecoderCatalog,
        library: MediaLibrary? = nil,
        stickers: StickerStore? = nil,
        idleBus: IdleBus = IdleBus(),
        logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        onListening: @escaping @Sendable (_ tcpPorts: [Int]) -> Void = { _ in }
    ) {
        let registry = ConnectionRegistry(limit: configuration.maxConnections)
        let listeners = ListenerSet()
        self.registry = registry
        self.listeners = listeners
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
        self.onListening = onListening
        inherited = Result { () throws(ListenerError) in try SocketActivation.takeInheritedSockets() }
        hostPermissions = HostPermissionMatcher(configuration: configuration)
        // `kill` stops the server the same way a signal does.
        context = ServerContext(
            configuration: configuration,
            idleBus: idleBus,
            metadataTags: TagMask(metadataToUse: configuration.metadataToUse),
            decoders: decoders,
            library: library,
            stickers: stickers,
            audio: AudioSetup.make(configuration: configuration) { problem in logger.error("\(problem)") },
            logger: logger
        ) {
            listeners.closeAll()
            registry.closeAll()
        }
    }

    /// The addresses the server listens on, once ``run()`` has bound them.
    public var localAddresses: [SocketAddress] { boundAddresses.withLock { $0 } }

    /// Binds every listener, then serves until graceful shutdown or ``stop()``.
    /// - Throws: when a listener cannot be bound.
    public func run() async throws {
        for address in HostPermissionMatcher.unreadableEntries(in: context.configuration) {
            logger.warning("host_permissions entry ignored, not an IP address or network: \(address)")
        }
        let bound = try await bindAll()
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
                    group.addTask {
                        do {
                            try await listener.channel.executeThenClose { inbound in
                                try await withThrowingDiscardingTaskGroup { connections in
                                    for try await connection in inbound {
                                        let executor = EventLoopTaskExecutor(connection.channel.channel.eventLoop)
                                        connections.addTask(executorPreference: executor) { await session.run(connection) }
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
    public func stop() {
        context.requestShutdown()
    }

    private struct BoundListener {
        let address: ListenAddress
        let channel: NIOAsyncChannel<AcceptedConnection, Never>
    }

    /// The sockets systemd passed, when socket-activated (they replace every configured
    /// address, as in MPD); otherwise binds `bind_to_address` and `port`.
    private func bindAll() async throws -> [BoundListener] {
        let inherited = try inherited.get()
        let addresses = inherited.isEmpty
            ? ListenAddress.all(for: context.configuration)
            : inherited.map { ListenAddress.inherited($0) }
        var bound: [BoundListener] = []
        do {
            for address in addresses {
                bound.append(BoundListener(address: address, channel: try await bind(address)))
            }
        } catch {
            for listener in bound { try? await listener.channel.channel.close() }
            throw error
        }
        return bound
    }

    private func bind(_ address: ListenAddress) async throws -> NIOAsyncChannel<AcceptedConnection, Never> {
        switch address {
        case .anyInterface(let port):
            do {
                return try await tcpBootstrap().bind(host: "::", port: port) { self.accept($0, isLocal: false) }
            } catch {
                // No IPv6 on this host: IPv4 alone still serves everyone it can.
                return try await tcpBootstrap().bind(host: "0.0.0.0", port: port) { self.accept($0, isLocal: false) }
            }
        case .host(let host, let port):
            return try await tcpBootstrap().bind(host: host, port: port) { self.accept($0, isLocal: false) }
        case .unixSocket(let path):
            try UnixSocketFile.removeStale(at: path)
            let listener = try await baseBootstrap().bind(unixDomainSocketPath: path) {
                self.accept($0, isLocal: true)
            }
            // 0666 unless `unix_socket_mode` says otherwise: any local user may connect, as with
            // MPD's socket; `local_permissions` and `password` still apply.
            chmod(path, mode_t(context.configuration.unixSocketMode))
            return listener
        case .inherited(let socket):
            let bootstrap = socket.isUnix ? baseBootstrap() : tcpBootstrap()
            return try await bootstrap.bind(socket.descriptor) { self.accept($0, isLocal: socket.isUnix) }
        }
    }

    private func baseBootstrap() -> ServerBootstrap {
        let maximumOutput = context.configuration.maxOutputBufferSize
        return ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: maximumOutput / 2, high: maximumOutput))
    }

    private func tcpBootstrap() -> ServerBootstrap {
        baseBootstrap().childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
    }

    /// Sets up the pipeline of an accepted connection; runs on its event loop.
    private func accept(_ channel: any Channel, isLocal: Bool) -> EventLoopFuture<AcceptedConnection> {
        channel.eventLoop.makeCompletedFuture {
            let timeout = context.configuration.connectionTimeout
            let inputHandler = SessionInputHandler(timeout: timeout > 0 ? .seconds(Int64(timeout)) : nil)
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineDecoder()))
            try channel.pipeline.syncOperations.addHandler(inputHandler)
            let asyncChannel = try NIOAsyncChannel<SessionInput, ByteBuffer>(wrappingChannelSynchronously: channel)
            let permissions = isLocal
                ? context.configuration.localPermissions
                : hostPermissions.permissions(for: channel.remoteAddress)
            return AcceptedConnection(
                channel: asyncChannel,
                control: SessionControl(handler: inputHandler, eventLoop: channel.eventLoop),
                isLocal: isLocal,
                permissions: permissions,
                peer: channel.remoteAddress.map { $0.displayString } ?? "local"
            )
        }
    }
}

/// The listening sockets, so that shutdown can close them from any thread.
private final class ListenerSet: Sendable {
    private let state = Mutex<(channels: [any Channel], closed: Bool)>(([], false))

    /// Records the bound listeners; closes them at once if shutdown came first.
    func set(_ channels: [any Channel]) {
        let closed = state.withLock { state in
            state.channels = channels
            return state.closed
        }
        if closed { for channel in channels { channel.close(promise: nil) } }
    }

    func closeAll() {
        let channels = state.withLock { state in
            state.closed = true
            return state.channels
        }
        for channel in channels { channel.close(promise: nil) }
    }
}
