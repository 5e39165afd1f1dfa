import MPDProtocol
import NIOCore
import NIOPosix
import Settings
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Binds the server's listening sockets and sets up each connection they accept: TCP and Unix
/// sockets from `bind_to_address` and `port`, or the sockets systemd passed.
struct ListenerBinder: Sendable {
    private let configuration: TonearmConfiguration
    private let eventLoopGroup: any EventLoopGroup
    private let hostPermissions: HostPermissionMatcher
    /// The sockets systemd passed, taken when the binder is made (with the server): before the
    /// state file is restored, since a restored `play` may start a pipe output, which must
    /// inherit neither the descriptors nor the variables.
    private let inherited: Result<[SocketActivation.InheritedSocket], ListenerError>

    /// Creates the binder and takes the sockets systemd passed, if any.
    init(configuration: TonearmConfiguration, eventLoopGroup: any EventLoopGroup) {
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        hostPermissions = HostPermissionMatcher(configuration: configuration)
        inherited = Result { () throws(ListenerError) in try SocketActivation.takeInheritedSockets() }
    }

    /// A bound listener and the address it was bound for.
    struct BoundListener {
        /// What was bound.
        let address: ListenAddress
        /// The listening socket, yielding set-up connections.
        let channel: NIOAsyncChannel<AcceptedConnection, Never>
    }

    /// The sockets systemd passed, when socket-activated (they replace every configured
    /// address, as in MPD); otherwise binds `bind_to_address` and `port`.
    func bindAll() async throws -> [BoundListener] {
        let inherited = try inherited.get()
        let addresses =
            inherited.isEmpty
            ? ListenAddress.all(for: configuration)
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
            chmod(path, mode_t(configuration.unixSocketMode))
            return listener
        case .inherited(let socket):
            let bootstrap = socket.isUnix ? baseBootstrap() : tcpBootstrap()
            return try await bootstrap.bind(socket.descriptor) { self.accept($0, isLocal: socket.isUnix) }
        }
    }

    private func baseBootstrap() -> ServerBootstrap {
        let maximumOutput = configuration.maxOutputBufferSize
        return ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: maximumOutput / 2, high: maximumOutput))
            // A client that shuts down its side after its last line (`echo status | nc -N`) is
            // answered before the connection closes, as MPD answers it (SessionBridge).
            .childChannelOption(.allowRemoteHalfClosure, value: true)
    }

    private func tcpBootstrap() -> ServerBootstrap {
        baseBootstrap().childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
    }

    /// Sets up the pipeline of an accepted connection; runs on its event loop.
    private func accept(_ channel: any Channel, isLocal: Bool) -> EventLoopFuture<AcceptedConnection> {
        channel.eventLoop.makeCompletedFuture {
            let control = try SessionChannel.configure(channel, connectionTimeout: configuration.connectionTimeout)
            let bridge = SessionBridge()
            try channel.pipeline.syncOperations.addHandler(bridge)
            let permissions =
                isLocal
                ? configuration.localPermissions
                : hostPermissions.permissions(for: channel.remoteAddress)
            return AcceptedConnection(
                channel: channel,
                io: SessionIO(bridge, eventLoop: channel.eventLoop),
                control: control,
                isLocal: isLocal,
                permissions: permissions,
                peer: channel.remoteAddress.map { $0.displayString } ?? "local"
            )
        }
    }
}

/// The listening sockets, so that shutdown can close them from any thread.
final class ListenerSet: Sendable {
    private let state = Mutex<(channels: [any Channel], closed: Bool)>(([], false))

    /// Records the bound listeners; closes them at once if shutdown came first.
    func set(_ channels: [any Channel]) {
        let closed = state.withLock { state in
            state.channels = channels
            return state.closed
        }
        if closed { for channel in channels { channel.close(promise: nil) } }
    }

    /// Closes every listener, and any bound later.
    func closeAll() {
        let channels = state.withLock { state in
            state.closed = true
            return state.channels
        }
        for channel in channels { channel.close(promise: nil) }
    }
}
