#if canImport(Glibc)
    import Glibc
#endif

/// systemd socket activation (sd_listen_fds(3)), without libsystemd: when `LISTEN_PID` is this
/// process and `LISTEN_FDS` is N ≥ 1, descriptors 3…3+N−1 are listening sockets opened for it,
/// and the server serves those instead of binding `bind_to_address`/`port` (as MPD does).
enum SocketActivation {
    /// The first descriptor passed (`SD_LISTEN_FDS_START`).
    static let firstDescriptor: CInt = 3

    /// One descriptor the launcher passed, before it is checked.
    struct Passed: Equatable {
        /// The file descriptor.
        let descriptor: CInt
        /// Its name from `LISTEN_FDNAMES` (the socket unit's `FileDescriptorName=`), if any.
        let name: String?

        /// How the log names it: `fd 3`, or `fd 3 (tonearm.socket)`.
        var label: String { name.map { "fd \(descriptor) (\($0))" } ?? "fd \(descriptor)" }
    }

    /// One passed descriptor that is a listening stream socket.
    struct InheritedSocket: Equatable, Sendable {
        /// The file descriptor, now close-on-exec.
        let descriptor: CInt
        /// How the log names it: `fd 3`, or `fd 3 (tonearm.socket)`.
        let label: String
        /// Whether it is a Unix-domain socket: its clients are local, as on a configured socket.
        let isUnix: Bool
    }

    /// The variables that carry the descriptors; unset once read so that children (pipe
    /// outputs) neither see nor act on them.
    static let variables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

    /// Which descriptors an environment passes to the process `processID`.
    /// - Returns: an empty list when nothing is passed to this process: no `LISTEN_PID`, or
    ///   another process's, or `LISTEN_FDS` 0.
    /// - Throws: when `LISTEN_PID` or `LISTEN_FDS` is not a number (sd_listen_fds fails too,
    ///   and MPD then refuses to start).
    static func passed(in environment: [String: String], processID: pid_t) throws(ListenerError) -> [Passed] {
        guard let pidText = environment["LISTEN_PID"] else { return [] }
        guard let pid = pid_t(pidText), pid > 0 else {
            throw ListenerError("LISTEN_PID is not a process id: \(pidText)")
        }
        guard pid == processID else { return [] }
        let countText = environment["LISTEN_FDS"] ?? "0"
        guard let count = Int32(countText), count >= 0, count <= Int32.max - firstDescriptor else {
            throw ListenerError("LISTEN_FDS is not a number of descriptors: \(countText)")
        }
        let names = environment["LISTEN_FDNAMES"].map { $0.split(separator: ":", omittingEmptySubsequences: false) }
        return (0..<count).map { index in
            let name = names.flatMap { Int(index) < $0.count ? String($0[Int(index)]) : nil }
            return Passed(descriptor: firstDescriptor + index, name: name?.isEmpty == false ? name : nil)
        }
    }

    /// Takes the sockets passed to this process: reads and unsets the variables, checks that
    /// every descriptor is a listening stream socket and marks it close-on-exec.
    /// - Returns: an empty list when the server is not socket-activated.
    /// - Throws: when a variable is malformed or a descriptor is not a listening stream socket;
    ///   serving only some of what the unit asked for would hide the mistake.
    static func takeInheritedSockets() throws(ListenerError) -> [InheritedSocket] {
        var environment: [String: String] = [:]
        for variable in variables {
            if let value = getenv(variable) { environment[variable] = String(cString: value) }
            unsetenv(variable)
        }
        return try passed(in: environment, processID: getpid()).map { passed throws(ListenerError) in
            try inspect(passed)
        }
    }

    /// Checks one passed descriptor and makes it close-on-exec.
    private static func inspect(_ passed: Passed) throws(ListenerError) -> InheritedSocket {
        let label = passed.label
        var status = stat()
        guard fstat(passed.descriptor, &status) == 0 else {
            throw ListenerError("socket activation passed \(label), which is not open: \(errorText())")
        }
        guard status.st_mode & S_IFMT == S_IFSOCK else {
            throw ListenerError("socket activation passed \(label), which is not a socket")
        }
        guard integerOption(passed.descriptor, SO_TYPE) == CInt(SOCK_STREAM.rawValue) else {
            throw ListenerError("socket activation passed \(label), which is not a stream socket")
        }
        guard integerOption(passed.descriptor, SO_ACCEPTCONN) == 1 else {
            throw ListenerError("socket activation passed \(label), which is not listening")
        }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(passed.descriptor, $0, &length) }
        }
        guard named == 0 else {
            throw ListenerError("socket activation passed \(label), whose address is unknown: \(errorText())")
        }
        let flags = fcntl(passed.descriptor, F_GETFD)
        if flags >= 0 { _ = fcntl(passed.descriptor, F_SETFD, flags | FD_CLOEXEC) }
        return InheritedSocket(descriptor: passed.descriptor, label: label, isUnix: CInt(address.ss_family) == AF_UNIX)
    }

    private static func integerOption(_ descriptor: CInt, _ option: CInt) -> CInt? {
        var value: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        return getsockopt(descriptor, SOL_SOCKET, option, &value, &length) == 0 ? value : nil
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
