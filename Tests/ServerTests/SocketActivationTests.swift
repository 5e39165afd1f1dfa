import Testing

@testable import Server

@Suite("socket activation environment")
struct SocketActivationTests {
    private func passed(_ environment: [String: String], pid: Int32 = 42) throws -> [SocketActivation.Passed] {
        try SocketActivation.passed(in: environment, processID: pid)
    }

    @Test("descriptors 3… for this process, named by LISTEN_FDNAMES where it names them")
    func forThisProcess() throws {
        #expect(try passed(["LISTEN_PID": "42", "LISTEN_FDS": "1"]) == [.init(descriptor: 3, name: nil)])
        #expect(
            try passed(["LISTEN_PID": "42", "LISTEN_FDS": "3", "LISTEN_FDNAMES": "tcp::unix"]) == [
                .init(descriptor: 3, name: "tcp"), .init(descriptor: 4, name: nil), .init(descriptor: 5, name: "unix"),
            ])
        // Fewer names than descriptors: the rest are unnamed.
        #expect(
            try passed(["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "tcp"]).map(\.name) == ["tcp", nil])
        #expect(try passed(["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "tcp"])[0].label == "fd 3 (tcp)")
    }

    @Test("nothing when the sockets are another process's, or there are none")
    func notForThisProcess() throws {
        #expect(try passed([:]).isEmpty)
        #expect(try passed(["LISTEN_FDS": "1"]).isEmpty)
        #expect(try passed(["LISTEN_PID": "41", "LISTEN_FDS": "1"]).isEmpty)
        #expect(try passed(["LISTEN_PID": "42", "LISTEN_FDS": "0"]).isEmpty)
        #expect(try passed(["LISTEN_PID": "42"]).isEmpty)
    }

    @Test("malformed numbers are errors, as sd_listen_fds returns -EINVAL")
    func malformed() {
        for environment in [
            ["LISTEN_PID": "forty-two", "LISTEN_FDS": "1"],
            ["LISTEN_PID": "0", "LISTEN_FDS": "1"],
            ["LISTEN_PID": "42", "LISTEN_FDS": "one"],
            ["LISTEN_PID": "42", "LISTEN_FDS": "-1"],
            ["LISTEN_PID": "42", "LISTEN_FDS": "2147483647"],
        ] {
            #expect(throws: ListenerError.self, "\(environment)") { try passed(environment) }
        }
    }
}
