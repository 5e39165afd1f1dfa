import MPDProtocol
import MusicModel

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

    /// A URI naming something in the database, as MPD 0.23's `LocateUri` reads it for `lsinfo`,
    /// `add`, `addid`, `readpicture`, `readcomments` and the playlist commands; `""` means the
    /// root where `allowEmpty`.
    ///
    /// A relative URI with an empty, `.` or `..` segment (`Various/`, `a//b`, `../etc`) names
    /// nothing in the database: MPD 0.23 looked it up and answered each command's own "not
    /// found" (ACK 50). MPD 0.24.11 answers `Bad relative path` (ACK 2) instead, which broke
    /// clients such as Cantata; Tonearm answers as 0.23, and never reads a file by such a URI.
    /// - Returns: the URI, or nil when it names nothing: the caller answers its "not found".
    /// - Throws: ACK 4 `Access denied` for an absolute path or `file://` URI (MPD allows those
    ///   to local clients only; Tonearm to none), ACK 2 `Malformed file:// URI` for a relative
    ///   one, ACK 2 `Unsupported URI scheme` for a URL (``stream(_:)`` takes the ones
    ///   that play).
    static func local(_ uri: String, allowEmpty: Bool) throws(MPDError) -> String? {
        if allowEmpty && uri.isEmpty { return "" }
        try refuseNonRelative(uri)
        return isSafeLocal(uri) ? uri : nil
    }

    /// A URI naming a place on disk, as MPD 0.23 reads it for `albumart` and `listfiles`, which
    /// look at the files rather than the database: empty segments are harmless (`a//b` is
    /// `a/b`), and a trailing slash names a folder — Cantata asks for an album's cover as
    /// `albumart "Artist/Album/"`.
    /// - Returns: the path without empty segments (`""` for the root) and whether the URI ended
    ///   in a slash.
    /// - Throws: as ``local(_:allowEmpty:)``, and ACK 2 `Bad relative path` (MPD 0.24.11's
    ///   answer) for a `.` or `..` segment, with which MPD 0.23 climbed out of the music
    ///   directory.
    static func onDisk(_ uri: String) throws(MPDError) -> (path: String, namesFolder: Bool) {
        if uri.isEmpty { return ("", true) }
        try refuseNonRelative(uri)
        let segments = uri.split(separator: "/")
        guard !segments.contains(where: { $0 == "." || $0 == ".." }) else {
            throw MPDError(.argument, "Bad relative path")
        }
        return (segments.joined(separator: "/"), uri.hasSuffix("/"))
    }

    /// The stream URL `uri` names, for `add`, `addid` and `playlistadd`: MPD's `LocateUri` for
    /// an absolute URI of an input plugin.
    /// - Returns: `uri` when it is a URL of a scheme the decoder plays; `nil` when it is no URL
    ///   (or a `file://` one, which ``local(_:allowEmpty:)`` answers).
    /// - Throws: ACK 2 `Unsupported URI scheme` for a URL of another scheme.
    static func stream(_ uri: String) throws(MPDError) -> String? {
        guard RemoteStream.hasScheme(uri), !hasFilePrefix(uri), uri.utf8.first != UInt8(ascii: "/") else { return nil }
        guard RemoteStream.isSupported(uri) else { throw MPDError(.argument, "Unsupported URI scheme") }
        return uri
    }

    /// Refuses what is not a relative URI: absolute paths, `file://` URIs and other URLs.
    ///
    /// Every `add`, `addid` and lookup of a song by its URI passes here, so it reads the bytes:
    /// `String.contains` and `lowercased()` cost more than the rest of `addid`'s checks.
    private static func refuseNonRelative(_ uri: String) throws(MPDError) {
        // MPD skips the obsolete `file://` prefix; what follows must be an absolute path.
        if try filePath(uri) != nil { throw MPDError(.permission, "Access denied") }
        if RemoteStream.hasScheme(uri) { throw MPDError(.argument, "Unsupported URI scheme") }
    }

    /// The absolute path a file argument names: `/path`, or a `file://` URI (the prefix in any
    /// case, as MPD's `LocateUri` takes it) followed by one; `nil` for anything else.
    /// - Throws: ACK 2 `Malformed file:// URI` when what follows `file://` is not absolute.
    static func filePath(_ argument: String) throws(MPDError) -> String? {
        if hasFilePrefix(argument) {
            let path = argument.utf8.dropFirst(7)
            guard path.first == UInt8(ascii: "/") else { throw MPDError(.argument, "Malformed file:// URI") }
            return String(path)
        }
        return argument.utf8.first == UInt8(ascii: "/") ? argument : nil
    }

    /// Whether `uri` starts with `file://`, the letters in any case.
    static func hasFilePrefix(_ uri: String) -> Bool {
        var bytes = uri.utf8.makeIterator()
        for expected in "file://".utf8 {
            guard let byte = bytes.next() else { return false }
            let lowered = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            if lowered != expected { return false }
        }
        return true
    }
}
