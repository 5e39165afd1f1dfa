import NIOCore
import Settings

/// One socket the server listens on, resolved from `bind_to_address` and `port`.
enum ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// All interfaces on this port (IPv6 dual-stack, or IPv4 where IPv6 is unavailable).
    case anyInterface(port: Int)
    /// One host name or address and port.
    case host(String, port: Int)
    /// A Unix-domain socket at this path.
    case unixSocket(String)
    /// A listening socket passed by systemd socket activation.
    case inherited(SocketActivation.InheritedSocket)

    /// The sockets for a configuration: one per `bind_to_address`, or all interfaces when
    /// there is none. A `bind_to_address` without its own port uses `port`.
    static func all(for configuration: TonearmConfiguration) -> [ListenAddress] {
        if configuration.bindAddresses.isEmpty { return [.anyInterface(port: configuration.port)] }
        return configuration.bindAddresses.map { address in
            switch address {
            case .any(let port): .anyInterface(port: port ?? configuration.port)
            case .host(let host, let port): .host(host, port: port ?? configuration.port)
            case .unixSocket(let path): .unixSocket(path)
            }
        }
    }

    var description: String {
        switch self {
        case .anyInterface(let port): "any:\(port)"
        case .host(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unixSocket(let path): path
        case .inherited(let socket): socket.label
        }
    }
}

extension SocketAddress {
    /// The address as a person writes it: `127.0.0.1:6600`, `[::1]:6600` or a socket path.
    var displayString: String {
        switch self {
        case .v4: "\(ipAddress ?? "?"):\(port ?? 0)"
        case .v6: "[\(ipAddress ?? "?")]:\(port ?? 0)"
        // An abstract socket (a socket unit's `ListenStream=@name`) has no path to show.
        case .unixDomainSocket: pathname.flatMap { $0.isEmpty ? nil : $0 } ?? "an abstract Unix socket"
        }
    }
}
