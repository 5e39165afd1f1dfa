/// The song tags of MPD 0.24, in MPD's order, with the names MPD gives them (in responses,
/// filters, sticker types and `metadata_to_use`).
package enum TagType: Int, CaseIterable, Sendable, Hashable {
    case artist, artistSort, album, albumSort, albumArtist, albumArtistSort, title, titleSort, track
    case name, genre, mood, date, originalDate, composer, composerSort, performer, conductor, work
    case movement, movementNumber, showMovement, ensemble, location, grouping, comment, disc, label
    case musicBrainzArtistID, musicBrainzAlbumID, musicBrainzAlbumArtistID, musicBrainzTrackID
    case musicBrainzReleaseTrackID, musicBrainzWorkID, musicBrainzReleaseGroupID

    /// MPD's name for the tag, as responses print it.
    package var name: String {
        switch self {
        case .artist: "Artist"
        case .artistSort: "ArtistSort"
        case .album: "Album"
        case .albumSort: "AlbumSort"
        case .albumArtist: "AlbumArtist"
        case .albumArtistSort: "AlbumArtistSort"
        case .title: "Title"
        case .titleSort: "TitleSort"
        case .track: "Track"
        case .name: "Name"
        case .genre: "Genre"
        case .mood: "Mood"
        case .date: "Date"
        case .originalDate: "OriginalDate"
        case .composer: "Composer"
        case .composerSort: "ComposerSort"
        case .performer: "Performer"
        case .conductor: "Conductor"
        case .work: "Work"
        case .movement: "Movement"
        case .movementNumber: "MovementNumber"
        case .showMovement: "ShowMovement"
        case .ensemble: "Ensemble"
        case .location: "Location"
        case .grouping: "Grouping"
        case .comment: "Comment"
        case .disc: "Disc"
        case .label: "Label"
        case .musicBrainzArtistID: "MUSICBRAINZ_ARTISTID"
        case .musicBrainzAlbumID: "MUSICBRAINZ_ALBUMID"
        case .musicBrainzAlbumArtistID: "MUSICBRAINZ_ALBUMARTISTID"
        case .musicBrainzTrackID: "MUSICBRAINZ_TRACKID"
        case .musicBrainzReleaseTrackID: "MUSICBRAINZ_RELEASETRACKID"
        case .musicBrainzWorkID: "MUSICBRAINZ_WORKID"
        case .musicBrainzReleaseGroupID: "MUSICBRAINZ_RELEASEGROUPID"
        }
    }

    private static let byLowercasedName: [String: TagType] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0.name.lowercased(), $0) }
    )

    /// Looks up a tag by name, ignoring case (MPD's `tag_name_parse_i`).
    package init?(name: String) {
        guard let tag = Self.byLowercasedName[name.lowercased()] else { return nil }
        self = tag
    }
}

/// A set of tag types, such as a client's `tagtypes` selection.
package struct TagMask: Sendable, Hashable {
    /// One bit per ``TagType`` raw value.
    package private(set) var bits: UInt64

    /// Creates a mask from its bits.
    package init(bits: UInt64) { self.bits = bits & TagMask.all.bits }

    /// Creates a mask holding `tags`.
    package init(_ tags: some Sequence<TagType>) {
        bits = tags.reduce(0) { $0 | (1 << UInt64($1.rawValue)) }
    }

    /// Every tag.
    package static let all = TagMask(bits: (1 << UInt64(TagType.allCases.count)) - 1, unchecked: ())
    /// No tag.
    package static let none = TagMask(bits: 0, unchecked: ())
    /// MPD's default `metadata_to_use`: every tag but `Comment`.
    package static let defaultMetadata = TagMask(TagType.allCases.filter { $0 != .comment })

    private init(bits: UInt64, unchecked: Void) { self.bits = bits }

    /// Whether `tag` is in the mask.
    package func contains(_ tag: TagType) -> Bool { bits & (1 << UInt64(tag.rawValue)) != 0 }

    /// The tags in the mask, in MPD's order.
    package var tags: [TagType] { TagType.allCases.filter(contains) }

    /// The union of two masks.
    package func union(_ other: TagMask) -> TagMask { TagMask(bits: bits | other.bits, unchecked: ()) }
    /// The tags in both masks.
    package func intersection(_ other: TagMask) -> TagMask { TagMask(bits: bits & other.bits, unchecked: ()) }
    /// The tags of this mask that are not in `other`.
    package func subtracting(_ other: TagMask) -> TagMask { TagMask(bits: bits & ~other.bits, unchecked: ()) }
}

extension TagMask {
    /// The tags a `metadata_to_use` setting selects (MPD's `TagLoadConfig`): `nil` for the
    /// default, `none` for no tag, names for exactly those, or `+NAME`/`-NAME` entries that
    /// edit the default. Unknown names are ignored.
    package init(metadataToUse names: [String]?) {
        guard let names else {
            self = .defaultMetadata
            return
        }
        let incremental = names.contains { $0.hasPrefix("+") || $0.hasPrefix("-") }
        var mask: TagMask = incremental ? .defaultMetadata : .none
        for entry in names {
            let trimmed = entry.trimmingSpaces
            if trimmed.lowercased() == "none" { continue }
            if trimmed.hasPrefix("-"), let tag = TagType(name: String(trimmed.dropFirst())) {
                mask = mask.subtracting(TagMask([tag]))
            } else if let tag = TagType(name: trimmed.hasPrefix("+") ? String(trimmed.dropFirst()) : trimmed) {
                mask = mask.union(TagMask([tag]))
            }
        }
        self = mask
    }
}

extension String {
    /// The string without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
