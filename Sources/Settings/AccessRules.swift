/// One `password "SECRET@perm,perm"` line: a client sending `password SECRET` gets exactly
/// these permissions.
package struct PasswordEntry: Sendable, Equatable {
    /// The secret, compared byte for byte.
    package var password: String
    /// What the password grants.
    package var permissions: Permissions

    /// Creates a password entry.
    package init(password: String, permissions: Permissions) {
        self.password = password
        self.permissions = permissions
    }
}

/// One `host_permissions "ADDRESS[/PREFIX] perm,perm"` line: TCP clients from that address or
/// network start with these permissions instead of `default_permissions`.
package struct HostPermission: Sendable, Equatable {
    /// A numeric IPv4 or IPv6 address, optionally with `/PREFIX`.
    package var address: String
    /// What clients from there get.
    package var permissions: Permissions

    /// Creates a host permission entry.
    package init(address: String, permissions: Permissions) {
        self.address = address
        self.permissions = permissions
    }
}

/// One `bind_to_address` value.
package enum BindAddress: Sendable, Equatable {
    /// `any`: every interface, on `port` unless the value names its own.
    case any(port: Int?)
    /// A host name or numeric address, with an optional port of its own.
    case host(String, port: Int?)
    /// A Unix-domain socket (a value starting with `/`, `~` or `$`).
    case unixSocket(path: String)

    /// Parses `any`, `any:PORT`, `HOST`, `HOST:PORT`, `[V6]`, `[V6]:PORT`, `V6` or a socket path.
    /// Paths must already be expanded by the caller.
    /// - Returns: nil when a port is given but is not a number from 1 to 65535.
    package init?(parsing value: String) {
        if value.hasPrefix("/") {
            self = .unixSocket(path: value)
            return
        }
        var host = value
        var port: Int?
        if value.hasPrefix("["), let close = value.firstIndex(of: "]") {
            host = String(value[value.index(after: value.startIndex)..<close])
            let rest = value[value.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()), (1...65535).contains(number) else {
                    return nil
                }
                port = number
            }
        } else if value.filter({ $0 == ":" }).count == 1, let colon = value.firstIndex(of: ":") {
            host = String(value[..<colon])
            guard let number = Int(value[value.index(after: colon)...]), (1...65535).contains(number) else {
                return nil
            }
            port = number
        }
        guard !host.isEmpty else { return nil }
        self = host == "any" ? .any(port: port) : .host(host, port: port)
    }
}
