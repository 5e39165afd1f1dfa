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

    /// A URI naming something in the music directory, as MPD 0.24.11's `LocateUri` accepts it
    /// for `lsinfo`, `listfiles`, `albumart`, `readpicture` and `readcomments`; `""` means
    /// the root where `allowEmpty`.
    ///
    /// MPD 0.23 passed any relative URI on (`Various/` and `a//b` were just not found, `..`
    /// climbed out of the music directory); 0.24.11 rejects every one that is not
    /// ``isSafeLocal(_:)``, and Tonearm follows 0.24.
    /// - Throws: ACK 4 `Access denied` for an absolute path or `file://` URI (MPD allows those
    ///   to local clients only; Tonearm to none), ACK 2 `Malformed file:// URI` for a relative
    ///   one, ACK 2 `Unsupported URI scheme` for another URL (Tonearm reads no streams),
    ///   ACK 2 `Bad relative path` for `..`, `//`, a trailing `/` and their kind.
    static func local(_ uri: String, allowEmpty: Bool) throws(MPDError) -> String {
        if allowEmpty && uri.isEmpty { return "" }
        if uri.utf8.count >= 7, uri.prefix(7).lowercased() == "file://" {
            // MPD skips the obsolete `file://` prefix; what follows must be an absolute path.
            guard uri.dropFirst(7).hasPrefix("/") else { throw MPDError(.argument, "Malformed file:// URI") }
            throw MPDError(.permission, "Access denied")
        }
        if uri.hasPrefix("/") { throw MPDError(.permission, "Access denied") }
        if uri.contains("://") { throw MPDError(.argument, "Unsupported URI scheme") }
        guard isSafeLocal(uri) else { throw MPDError(.argument, "Bad relative path") }
        return uri
    }
}
