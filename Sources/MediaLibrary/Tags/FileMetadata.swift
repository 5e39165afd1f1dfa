package import MusicModel

/// What reading a file's metadata gives: its tags, duration and audio format.
package struct FileMetadata: Sendable, Equatable {
    /// Tag values in the order MPD's decoder plugin for the format reports them (file order for
    /// Vorbis comments); a tag may occur several times (multi-value).
    package var tags: [TagValue]
    /// The duration in seconds, when known.
    package var duration: Double?
    /// The audio format as MPD prints it (`44100:16:2`, `48000:f:2`, `dsd64:2`), when known.
    package var audioFormat: String?
    /// Whether the file carries an embedded picture (an attached-picture stream).
    package var hasEmbeddedPicture: Bool

    /// Creates metadata.
    package init(
        tags: [TagValue] = [], duration: Double? = nil, audioFormat: String? = nil, hasEmbeddedPicture: Bool = false
    ) {
        self.tags = tags
        self.duration = duration
        self.audioFormat = audioFormat
        self.hasEmbeddedPicture = hasEmbeddedPicture
    }
}
