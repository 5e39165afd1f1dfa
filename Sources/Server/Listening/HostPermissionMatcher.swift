import Glibc
import NIOCore
import Settings

/// Chooses the permissions of a TCP client by its address (`host_permissions`), as MPD does:
/// the entry written last is tried first, and a client no entry matches gets the default.
struct HostPermissionMatcher: Sendable {
    private struct Entry: Sendable {
        let network: [UInt8]
        let prefixLength: Int
        let permissions: Permissions
    }

    private let entries: [Entry]
    private let fallback: Permissions

    /// Builds the matcher. Entries that are not `ADDRESS` or `ADDRESS/PREFIX` with a numeric
    /// IPv4 or IPv6 address are skipped and returned, so the caller can log them.
    init(configuration: TonearmConfiguration) {
        var entries: [Entry] = []
        for item in configuration.hostPermissions.reversed() {
            let parts = item.address.split(separator: "/", maxSplits: 1).map(String.init)
            guard let first = parts.first, let bytes = Self.addressBytes(first) else { continue }
            let maximum = bytes.count * 8
            let prefix = parts.count == 2 ? Int(parts[1]) ?? -1 : maximum
            guard (0...maximum).contains(prefix) else { continue }
            entries.append(Entry(network: bytes, prefixLength: prefix, permissions: item.permissions))
        }
        self.entries = entries
        fallback = configuration.defaultPermissions
    }

    /// The `host_permissions` entries that this matcher could not read.
    static func unreadableEntries(in configuration: TonearmConfiguration) -> [String] {
        configuration.hostPermissions.map(\.address).filter { address in
            let parts = address.split(separator: "/", maxSplits: 1).map(String.init)
            guard let first = parts.first, let bytes = addressBytes(first) else { return true }
            guard parts.count == 2 else { return false }
            return !(0...(bytes.count * 8)).contains(Int(parts[1]) ?? -1)
        }
    }

    /// The permissions of a client connecting from `address`.
    func permissions(for address: SocketAddress?) -> Permissions {
        guard let address, var bytes = Self.addressBytes(address) else { return fallback }
        for entry in entries {
            // An IPv4 client reaching a dual-stack socket appears as ::ffff:a.b.c.d.
            if entry.network.count == 4, bytes.count == 16, bytes[0..<12].elementsEqual(Self.mappedPrefix) {
                bytes = Array(bytes[12...])
            }
            if bytes.count == entry.network.count, Self.matches(bytes, entry.network, prefix: entry.prefixLength) {
                return entry.permissions
            }
        }
        return fallback
    }

    private static let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]

    private static func matches(_ address: [UInt8], _ network: [UInt8], prefix: Int) -> Bool {
        var remaining = prefix
        for (a, n) in zip(address, network) where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if a & mask != n & mask { return false }
            remaining -= bits
        }
        return true
    }

    private static func addressBytes(_ text: String) -> [UInt8]? {
        guard let address = try? SocketAddress(ipAddress: text, port: 0) else { return nil }
        return addressBytes(address)
    }

    private static func addressBytes(_ address: SocketAddress) -> [UInt8]? {
        switch address {
        case .v4: address.ipAddress.flatMap { numericBytes($0, family: AF_INET, count: 4) }
        case .v6: address.ipAddress.flatMap { numericBytes($0, family: AF_INET6, count: 16) }
        case .unixDomainSocket: nil
        }
    }

    /// The network-order bytes of a numeric address, read with `inet_pton`.
    private static func numericBytes(_ text: String, family: Int32, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let result = bytes.withUnsafeMutableBytes { inet_pton(family, text, $0.baseAddress) }
        return result == 1 ? bytes : nil
    }
}
