#if canImport(Glibc)
    import Glibc
#endif

/// The file of a configured Unix socket (`bind_to_address "/run/tonearm/socket"`), made ready
/// for binding. MPD unlinks whatever is at the path; Tonearm removes only what a crash leaves
/// behind, so a typo in `bind_to_address` cannot delete a file or cut off another running server.
enum UnixSocketFile {
    /// Removes a stale socket file at `path`, left by a server that is gone.
    /// - Throws: when the path holds something that is not a socket, or a socket that a live
    ///   server still accepts connections on.
    static func removeStale(at path: String) throws(ListenerError) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }  // nothing there (or unreadable: bind says why)
        guard status.st_mode & S_IFMT == S_IFSOCK else {
            throw ListenerError("\(path) exists and is not a socket; not removing it")
        }
        if acceptsConnections(path) {
            throw ListenerError("\(path) is in use: another server is listening on it")
        }
        unlink(path)
    }

    /// Whether something listens on the socket at `path`: a connect succeeds (or the listener's
    /// backlog is full, which is just as live). Refused means the file is stale.
    private static func acceptsConnections(_ path: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let bytes = Array(path.utf8)
        guard bytes.count < capacity else { return false }  // too long to bind either: bind reports it
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let probe = socket(
            AF_UNIX, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue) | CInt(SOCK_NONBLOCK.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0 || errno == EAGAIN || errno == EINPROGRESS
    }
}
