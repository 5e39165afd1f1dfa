import MPDProtocol

/// MPD's checks on URIs that name something in the music directory (`LocateUri`,
/// `uri_safe_local`).
enum LibraryURI {
    /// A relative URI every segment of which is a real name: not empty, not `.` or `..`.
    static func isSafeLocal(_ uri: String) -> Bool {
        guard !uri.isEmpty else { return false }
        return uri.split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
            !$0.isEmpty && $0 != "." && $0 != ".."
        }
    }

    /// A URI naming something in the music directory, as `lsinfo`, `albumart` and their
    /// relatives accept it; `/` means the root where `allowEmpty`.
    /// - Throws: ACK 2 `Unsupported URI scheme` for a URL, ACK 4 `Access denied` for an
    ///   absolute path, ACK 2 `Bad relative path` for `..`, `//` and their kind.
    static func local(_ uri: String, allowEmpty: Bool) throws(MPDError) -> String {
        if allowEmpty && (uri.isEmpty || uri == "/") { return "" }
        if uri.contains("://") { throw MPDError(.argument, "Unsupported URI scheme") }
        if uri.hasPrefix("/") { throw MPDError(.permission, "Access denied") }
        guard isSafeLocal(uri) else { throw MPDError(.argument, "Bad relative path") }
        return uri
    }
}
