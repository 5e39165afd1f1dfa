package import MusicModel

/// A directory of the library, as `lsinfo` and `listall` show it.
package struct LibraryDirectory: Sendable, Equatable {
    /// The path relative to the music directory; `""` is the root.
    package var path: String
    /// The directory's modification time (UNIX seconds).
    package var lastModified: Int64

    /// Creates a directory entry.
    package init(path: String, lastModified: Int64) {
        self.path = path
        self.lastModified = lastModified
    }
}

/// A playlist file found in the music directory (`.m3u`, `.pls`, …).
package struct PlaylistFile: Sendable, Equatable {
    /// The URI relative to the music directory.
    package var uri: String
    /// The file's modification time (UNIX seconds).
    package var lastModified: Int64

    /// Creates a playlist entry.
    package init(uri: String, lastModified: Int64) {
        self.uri = uri
        self.lastModified = lastModified
    }
}

/// One entry of a directory walk, in MPD's order.
package enum LibraryEntry: Sendable, Equatable {
    /// A directory line.
    case directory(LibraryDirectory)
    /// A song.
    case song(Song)
    /// A playlist file.
    case playlist(PlaylistFile)
}
