/// Why the server cannot listen where it was told to: a socket file in the way, or sockets
/// passed by socket activation that are not listening stream sockets. The server logs it and
/// exits with status 1, as MPD does when it cannot bind.
struct ListenerError: Error, CustomStringConvertible {
    /// The log line.
    let description: String

    init(_ description: String) { self.description = description }
}
