import Logging
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// Tells systemd how the service is doing (sd_notify(3)) for `Type=notify` units, without
/// libsystemd: one datagram per state, on the AF_UNIX socket named by `NOTIFY_SOCKET` (a path,
/// or an abstract address when it starts with `@`). `READY=1` once the server listens with the
/// state file restored, so units ordered after it start when clients can be served;
/// `STOPPING=1` when shutdown begins.
///
/// As a service in the group it only waits: graceful shutdown (SIGTERM, SIGINT, `kill`) is its
/// cue for `STOPPING=1`. Put it last in the group so it hears the shutdown first.
struct SystemdNotifier: Service, CustomStringConvertible {
    /// The notification socket's address bytes (`sun_path`), abstract ones starting with NUL.
    private let path: [UInt8]
    private let logger: Logger

    /// The name ServiceLifecycle logs.
    var description: String { "SystemdNotifier" }

    /// Reads and unsets `NOTIFY_SOCKET`, so that children (pipe outputs) cannot speak for the
    /// server.
    /// - Returns: nil when the variable is unset or not a usable address (logged): the server
    ///   was not started by systemd as a `Type=notify` service.
    static func fromEnvironment(logger: Logger) -> SystemdNotifier? {
        guard let raw = getenv("NOTIFY_SOCKET") else { return nil }
        let value = String(cString: raw)
        unsetenv("NOTIFY_SOCKET")
        var path = Array(value.utf8)
        if path.first == UInt8(ascii: "@") {
            path[0] = 0
        } else if path.first != UInt8(ascii: "/") {
            logger.warning("NOTIFY_SOCKET ignored, neither a path nor an abstract address: \(value)")
            return nil
        }
        guard path.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else {
            logger.warning("NOTIFY_SOCKET ignored, too long for a socket address: \(value)")
            return nil
        }
        return SystemdNotifier(path: path, logger: logger)
    }

    /// Sends one notification such as `READY=1`; a failure is logged, never fatal (the
    /// server serves the same with or without systemd listening).
    func notify(_ state: String) {
        let descriptor = socket(AF_UNIX, CInt(SOCK_DGRAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            logger.warning("cannot notify systemd (\(state)): \(String(cString: strerror(errno)))")
            return
        }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        // Abstract addresses are exactly as long as given; paths end at their NUL.
        let length = MemoryLayout.offset(of: \sockaddr_un.sun_path)! + path.count + (path.first == 0 ? 0 : 1)
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                sendto(descriptor, message, message.count, CInt(MSG_NOSIGNAL), socketAddress, socklen_t(length))
            }
        }
        if sent < 0 {
            logger.warning("cannot notify systemd (\(state)): \(String(cString: strerror(errno)))")
        }
    }

    /// Waits for graceful shutdown, then sends `STOPPING=1`.
    func run() async throws {
        try? await gracefulShutdown()
        notify("STOPPING=1")
    }
}
