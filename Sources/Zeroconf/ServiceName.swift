import CAvahi

#if canImport(Glibc)
    import Glibc
#endif

/// The name under which the server is announced on the LAN (`zeroconf_name`).
package struct ZeroconfServiceName: Sendable, Equatable, CustomStringConvertible {
    /// The name with `%h` already replaced by the host name.
    package let value: String

    /// Expands the first `%h` in `template` to `hostName`, as MPD does.
    /// - Returns: `nil` when the result is not a valid DNS-SD service name (empty, or longer
    ///   than 63 bytes), which Avahi would refuse to publish.
    package init?(template: String, hostName: String) {
        var expanded = template
        if let start = expanded.indices.first(where: { expanded[$0...].hasPrefix("%h") }) {
            expanded.replaceSubrange(start..<expanded.index(start, offsetBy: 2), with: hostName)
        }
        guard avahi_is_valid_service_name(expanded) != 0 else { return nil }
        value = expanded
    }

    /// Expands `template` with this machine's host name (`gethostname`, as MPD).
    package init?(template: String) {
        self.init(template: template, hostName: Self.systemHostName())
    }

    package var description: String { value }

    /// This machine's host name, or `localhost` if it has none.
    package static func systemHostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }
}
