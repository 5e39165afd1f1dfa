/// One tag value of a song, in the order the file gave it.
package struct TagValue: Sendable, Equatable {
    /// The tag type.
    package var type: TagType
    /// The value, as read from the file (trimmed of control characters).
    package var value: String

    /// Creates a tag value.
    package init(_ type: TagType, _ value: String) {
        self.type = type
        self.value = value
    }
}

/// A song of the library: what MPD's `LightSong` holds, as every layer passes it around.
package struct Song: Sendable, Equatable {
    /// The URI relative to the music directory.
    package var uri: String
    /// The file's modification time (UNIX seconds).
    package var lastModified: Int64
    /// When the song first entered the database (UNIX seconds).
    package var added: Int64
    /// The audio format string, when known.
    package var audioFormat: String?
    /// The duration in seconds, when known.
    package var duration: Double?
    /// The tags in the order MPD reports them for the file's format (file order for Vorbis
    /// comments), which is the order song blocks print; packed in one buffer.
    package var packedTags: PackedTagList

    /// The tags, decoded from ``packedTags``: each read builds an array and its strings.
    package var tags: [TagValue] {
        get { packedTags.values }
        set { packedTags = PackedTagList(newValue) }
    }

    /// Creates a song.
    package init(
        uri: String, lastModified: Int64, added: Int64, audioFormat: String?, duration: Double?, tags: [TagValue]
    ) {
        self.init(
            uri: uri, lastModified: lastModified, added: added, audioFormat: audioFormat, duration: duration,
            packedTags: PackedTagList(tags))
    }

    /// Creates a song with its tags already packed.
    package init(
        uri: String, lastModified: Int64, added: Int64, audioFormat: String?, duration: Double?,
        packedTags: PackedTagList
    ) {
        self.uri = uri
        self.lastModified = lastModified
        self.added = added
        self.audioFormat = audioFormat
        self.duration = duration
        self.packedTags = packedTags
    }
}
