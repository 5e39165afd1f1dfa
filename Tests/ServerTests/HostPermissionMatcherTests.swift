import NIOCore
import Settings
import Testing

@testable import Server

@Suite("host_permissions")
struct HostPermissionMatcherTests {
    private func configuration(_ entries: [(String, Permissions)]) -> TonearmConfiguration {
        var configuration = TonearmConfiguration.defaults(environment: ["HOME": "/tmp"])
        configuration.hostPermissions = entries.map { HostPermission(address: $0.0, permissions: $0.1) }
        configuration.defaultPermissions = .none
        return configuration
    }

    private func address(_ ip: String) throws -> SocketAddress { try SocketAddress(ipAddress: ip, port: 1234) }

    @Test("exact addresses, networks, the last entry first, and the default")
    func matching() throws {
        let matcher = HostPermissionMatcher(
            configuration: configuration([
                ("192.168.1.0/24", [.read]),
                ("192.168.1.7", [.read, .add]),
                ("::1", .all),
            ]))
        #expect(matcher.permissions(for: try address("192.168.1.7")) == [.read, .add])
        #expect(matcher.permissions(for: try address("192.168.1.200")) == [.read])
        #expect(matcher.permissions(for: try address("192.168.2.1")) == .none)
        #expect(matcher.permissions(for: try address("::1")) == .all)
        #expect(matcher.permissions(for: try address("::ffff:192.168.1.9")) == [.read])
        #expect(matcher.permissions(for: nil) == .none)
    }

    @Test("entries that are not addresses are reported, not matched")
    func unreadable() {
        let config = configuration([("music.local", [.read]), ("10.0.0.0/33", [.read]), ("10.0.0.0/8", [.read])])
        #expect(HostPermissionMatcher.unreadableEntries(in: config) == ["music.local", "10.0.0.0/33"])
    }
}
