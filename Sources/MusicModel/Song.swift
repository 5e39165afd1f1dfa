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

/// A song of the library: what MPD's `LightSong` holds, as every layer passes it around.
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
    public init(
        uri: String, lastModified: Int64, added: Int64, audioFormat: String?, duration: Double?, tags: [TagValue]
    ) {
        self.uri = uri
        self.lastModified = lastModified
        self.added = added
        self.audioFormat = audioFormat
        self.duration = duration
        self.tags = tags
    }
}
