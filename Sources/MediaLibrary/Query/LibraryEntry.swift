public import MusicModel

/// A directory of the library, as `lsinfo` and `listall` show it.
public struct LibraryDirectory: Sendable, Equatable {
    /// The path relative to the music directory; `""` is the root.
    public var path: String
    /// The directory's modification time (UNIX seconds).
    public var lastModified: Int64

    /// Creates a directory entry.
    public init(path: String, lastModified: Int64) {
        self.path = path
        self.lastModified = lastModified
    }
}

/// A playlist file found in the music directory (`.m3u`, `.pls`, …).
public struct PlaylistFile: Sendable, Equatable {
    /// The URI relative to the music directory.
    public var uri: String
    /// The file's modification time (UNIX seconds).
    public var lastModified: Int64

    /// Creates a playlist entry.
    public init(uri: String, lastModified: Int64) {
        self.uri = uri
        self.lastModified = lastModified
    }
}

/// One entry of a directory walk, in MPD's order.
public enum LibraryEntry: Sendable, Equatable {
    /// A directory line.
    case directory(LibraryDirectory)
    /// A song.
    case song(Song)
    /// A playlist file.
    case playlist(PlaylistFile)
}
