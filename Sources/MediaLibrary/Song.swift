public import MPDProtocol

/// One tag value of a song, in the order the file gave it.
public struct TagValue: Sendable, Equatable {
    /// The tag type.
    public var type: TagType
    /// The value, as read from the file (trimmed of control characters).
    public var value: String

    /// Creates a tag value.
    public init(_ type: TagType, _ value: String) {
        self.type = type
        self.value = value
    }
}

/// What reading a file's metadata gives: its tags, duration and audio format.
public struct FileMetadata: Sendable, Equatable {
    /// Tag values in the order MPD's decoder plugin for the format reports them (file order for
    /// Vorbis comments); a tag may occur several times (multi-value).
    public var tags: [TagValue]
    /// The duration in seconds, when known.
    public var duration: Double?
    /// The audio format as MPD prints it (`44100:16:2`, `48000:f:2`, `dsd64:2`), when known.
    public var audioFormat: String?
    /// Whether the file carries an embedded picture (an attached-picture stream).
    public var hasEmbeddedPicture: Bool

    /// Creates metadata.
    public init(tags: [TagValue] = [], duration: Double? = nil, audioFormat: String? = nil, hasEmbeddedPicture: Bool = false) {
        self.tags = tags
        self.duration = duration
        self.audioFormat = audioFormat
        self.hasEmbeddedPicture = hasEmbeddedPicture
    }
}

/// A song in the database: MPD's `LightSong` as the protocol prints it.
public struct Song: Sendable, Equatable {
    /// The URI relative to the music directory.
    public var uri: String
    /// The file's modification time (UNIX seconds).
    public var lastModified: Int64
    /// When the song first entered the database (UNIX seconds).
    public var added: Int64
    /// The audio format string, when known.
    public var audioFormat: String?
    /// The duration in seconds, when known.
    public var duration: Double?
    /// The tags in the order MPD reports them for the file's format (file order for Vorbis
    /// comments), which is the order song blocks print.
    public var tags: [TagValue]

    /// Creates a song.
    public init(uri: String, lastModified: Int64, added: Int64, audioFormat: String?, duration: Double?, tags: [TagValue]) {
        self.uri = uri
        self.lastModified = lastModified
        self.added = added
        self.audioFormat = audioFormat
        self.duration = duration
        self.tags = tags
    }
}

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
