package import MusicModel

/// What a sticker is attached to: MPD 0.24's sticker "domains".
package enum StickerType: Sendable, Equatable {
    /// A song, by its URI in the music database.
    case song
    /// A stored playlist, by name.
    case playlist
    /// The songs a filter expression selects, by the expression as MPD normalises it.
    case filter
    /// A tag value, such as an artist or an album (only the ``allowedTags``).
    case tag(TagType)

    /// The tags MPD allows stickers on (`sticker/AllowedTags.cxx`), in MPD's tag order.
    package static let allowedTags: [TagType] = [
        .artist, .album, .albumArtist, .title, .genre, .composer, .performer, .conductor, .work, .ensemble,
        .location, .label, .musicBrainzArtistID, .musicBrainzAlbumID, .musicBrainzAlbumArtistID,
        .musicBrainzReleaseTrackID, .musicBrainzWorkID,
    ]

    /// Looks up a type as MPD's `handle_sticker` does: `song`, `playlist` and `filter` exactly,
    /// then any tag name ignoring case (a tag outside ``allowedTags`` is refused later, when
    /// the URI is checked, so that `find` still works for it as in MPD).
    package init?(name: String) {
        switch name {
        case "song": self = .song
        case "playlist": self = .playlist
        case "filter": self = .filter
        default:
            guard let tag = TagType(name: name) else { return nil }
            self = .tag(tag)
        }
    }

    /// The type as stored in the database's `type` column; tags as MPD spells them.
    package var name: String {
        switch self {
        case .song: "song"
        case .playlist: "playlist"
        case .filter: "filter"
        case .tag(let tag): tag.name
        }
    }
}
