import CAvahi

/// The name under which the server is announced on the LAN (`zeroconf_name`).
public struct ZeroconfServiceName: Sendable, Equatable, CustomStringConvertible {
    /// The name with `%h` already replaced by the host name.
    public let value: String

    /// Expands the first `%h` in `template` to `hostName`, as MPD does.
    /// - Returns: `nil` when the result is not a valid DNS-SD service name (empty, or longer
    ///   than 63 bytes), which Avahi would refuse to publish.
    public init?(template: String, hostName: String) {
        var expanded = template
        if let start = expanded.indices.first(where: { expanded[$0...].hasPrefix("%h") }) {
            expanded.replaceSubrange(start..<expanded.index(start, offsetBy: 2), with: hostName)
        }
        guard avahi_is_valid_service_name(expanded) != 0 else { return nil }
        value = expanded
    }

    public var description: String { value }
}
