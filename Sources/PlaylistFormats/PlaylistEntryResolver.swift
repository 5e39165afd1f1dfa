/// Reads a playlist entry the way MPD's `playlist_check_translate_song` does before it looks the
/// song up: relative to the playlist's folder, with `.` and `..` segments removed, and absolute
/// paths (or `file://` URIs) inside the music directory turned into library URIs.
package struct PlaylistEntryResolver: Sendable {
    /// Where an entry points.
    package struct Target: Sendable, Equatable {
        /// The URI MPD prints for the entry when the song is not in the database: the entry
        /// after translation.
        package var uri: String
        /// Whether ``uri`` is a library URI worth looking up in the database. URLs, paths
        /// outside the music directory and URIs with empty segments never name a library song.
        package var isLibraryURI: Bool

        /// Creates a target.
        package init(uri: String, isLibraryURI: Bool) {
            self.uri = uri
            self.isLibraryURI = isLibraryURI
        }
    }

    /// `music_directory` without a trailing slash.
    package let musicDirectory: String

    /// Creates a resolver for the library at `musicDirectory`.
    package init(musicDirectory: String) {
        var root = musicDirectory
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        self.musicDirectory = root
    }

    /// Where `entry` points when it was read from a playlist in the folder `base` (a library
    /// URI; `""` for the root and for stored playlists, whose entries are relative to the root).
    package func resolve(_ entry: String, base: String) -> Target {
        if entry.utf8.count >= 7, entry.prefix(7).lowercased() == "file://" {
            let path = String(entry.dropFirst(7))
            guard path.hasPrefix("/"), let uri = libraryURI(ofPath: Self.squashDotSegments(path)) else {
                return Target(uri: entry, isLibraryURI: false)
            }
            return Target(uri: uri, isLibraryURI: Self.isSafeLocal(uri))
        }
        if entry.contains("://") { return Target(uri: entry, isLibraryURI: false) }
        if entry.hasPrefix("/") {
            let path = Self.squashDotSegments(entry)
            guard let uri = libraryURI(ofPath: path) else { return Target(uri: path, isLibraryURI: false) }
            return Target(uri: uri, isLibraryURI: Self.isSafeLocal(uri))
        }
        let uri = Self.squashDotSegments(base.isEmpty ? entry : base + "/" + entry)
        return Target(uri: uri, isLibraryURI: Self.isSafeLocal(uri))
    }

    /// The library URI of an absolute path below the music directory, else `nil`.
    package func libraryURI(ofPath path: String) -> String? {
        let prefix = musicDirectory == "/" ? "/" : musicDirectory + "/"
        guard path.hasPrefix(prefix), path.count > prefix.count else { return nil }
        return String(path.dropFirst(prefix.count))
    }

    /// MPD's `uri_squash_dot_segments`: `.` segments go, each `..` takes the segment before it
    /// along, and `..` segments with nothing left before them are dropped. Empty segments stay
    /// (`a//b` is kept, and then names nothing).
    package static func squashDotSegments(_ uri: String) -> String {
        var kept: [Substring] = []
        var skips = 0
        for segment in uri.split(separator: "/", omittingEmptySubsequences: false).reversed() where segment != "." {
            if segment == ".." {
                skips += 1
            } else if skips > 0 {
                skips -= 1
            } else {
                kept.append(segment)
            }
        }
        return kept.reversed().joined(separator: "/")
    }

    /// A relative URI every segment of which is a real name (MPD 0.24.11's `uri_safe_local`).
    package static func isSafeLocal(_ uri: String) -> Bool {
        !uri.isEmpty
            && uri.split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
                !$0.isEmpty && $0 != "." && $0 != ".."
            }
    }

    /// The folder of a library URI (`""` for one at the root), against which a playlist's
    /// relative entries are read.
    package static func folder(of uri: String) -> String {
        guard let slash = uri.lastIndex(of: "/") else { return "" }
        return String(uri[..<slash])
    }
}
