import MPDProtocol

/// Gathers the tag values of one file: maps each format's native names to ``TagType``, keeps
/// only wanted tags, and cleans values the way MPD's tag builder does.
struct TagCollector {
    /// The tags to keep.
    let wanted: TagMask
    /// The values collected so far, in file order.
    private(set) var tags: [TagValue] = []

    /// Creates an empty collector.
    init(wanted: TagMask) { self.wanted = wanted }

    /// Adds a value after cleaning it; drops it when unwanted or empty.
    ///
    /// Track and disc keep only their leading number (`3/12` → `3`, `03` → `3`), like MPD's
    /// `AddTagHandler`; a value without a leading number is dropped.
    mutating func add(_ type: TagType, _ raw: String) {
        guard wanted.contains(type) else { return }
        var value = Self.clean(raw)
        if type == .track || type == .disc {
            let digits = value.drop { $0 == "+" }.prefix { $0.isASCII && $0.isNumber }
            let significant = digits.drop { $0 == "0" }
            guard !digits.isEmpty, let number = significant.isEmpty ? 0 : UInt32(significant) else { return }
            value = String(number)
        }
        guard !value.isEmpty else { return }
        tags.append(TagValue(type, value))
    }

    /// Control characters become spaces (MPD's `FixTagString`), then surrounding white space goes.
    static func clean(_ raw: String) -> String {
        var scalars = String.UnicodeScalarView()
        var changed = false
        for scalar in raw.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                scalars.append(" ")
                changed = true
            } else {
                scalars.append(scalar)
            }
        }
        let text = changed ? String(scalars) : raw
        return String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}

/// The name tables: which key of which tag format is which MPD tag.
enum TagNames {
    /// A Vorbis comment name (FLAC, Ogg): MPD's Xiph additions first, then MPD's own tag names,
    /// ignoring case (`ARTIST`, `ALBUMARTIST`, `MUSICBRAINZ_ALBUMID`, `TRACKNUMBER`, …).
    static func vorbis(_ key: String) -> TagType? {
        let lowered = key.lowercased()
        return xiph[lowered] ?? TagType(name: lowered)
    }

    /// A libavformat metadata key, as MPD's FFmpeg plugin maps them: MPD's tag names, FFmpeg's
    /// generic names (`album_artist`, `artist-sort`, MP4's `sort_album`…), the TXXX / freeform
    /// MusicBrainz descriptions, and a few ID3 and APE names FFmpeg passes through unrenamed.
    /// With `xiphNames` (Ogg or FLAC read through FFmpeg), Vorbis comment names come first.
    static func ffmpeg(_ key: String, xiphNames: Bool) -> TagType? {
        let lowered = key.lowercased()
        if xiphNames, let type = xiph[lowered] { return type }
        return TagType(name: lowered) ?? ffmpegNames[lowered] ?? musicBrainzDescriptions[lowered]
    }

    /// The tag of an ID3v2 frame, following MPD's `scan_id3_tag`; nil for frames MPD ignores.
    static func id3(_ frame: ID3Frame) -> TagType? {
        switch frame.id {
        case "TXXX": musicBrainzDescriptions[frame.description.lowercased()]
        case "UFID": frame.description == "http://musicbrainz.org" ? .musicBrainzTrackID : nil
        default: id3Frames[frame.id]
        }
    }

    /// MPD's `xiph_tags`: names that differ from MPD's own tag names.
    private static let xiph: [String: TagType] = [
        "tracknumber": .track, "discnumber": .disc, "description": .comment,
        "movementname": .movement, "movement": .movementNumber,
    ]

    /// FFmpeg's generic names (id3v2.c, mov.c, riff, APE) that are not MPD tag names.
    private static let ffmpegNames: [String: TagType] = [
        "album_artist": .albumArtist, "album-sort": .albumSort, "artist-sort": .artistSort,
        "sort_album_artist": .albumArtistSort, "sort_album": .albumSort, "sort_artist": .artistSort,
        // Names FFmpeg leaves as they are when it reads ID3v2 (appended tags, ID3 in AIFF/WAV).
        "tso2": .albumArtistSort, "tdor": .originalDate, "tory": .originalDate, "tmoo": .mood,
        // APE tags (MPD's ApeTag table).
        "album artist": .albumArtist, "year": .date,
    ]

    /// MPD's `musicbrainz_txxx_tags`, lowercased: ID3 TXXX and MP4 freeform descriptions.
    private static let musicBrainzDescriptions: [String: TagType] = [
        "albumartistsort": .albumArtistSort,
        "musicbrainz artist id": .musicBrainzArtistID,
        "musicbrainz album id": .musicBrainzAlbumID,
        "musicbrainz album artist id": .musicBrainzAlbumArtistID,
        "musicbrainz track id": .musicBrainzTrackID,
        "musicbrainz release track id": .musicBrainzReleaseTrackID,
        "musicbrainz work id": .musicBrainzWorkID,
        "musicbrainz release group id": .musicBrainzReleaseGroupID,
    ]

    /// ID3v2.4 text frames (v2.2/v2.3 names are mapped before) as MPD's `scan_id3_tag` reads them.
    private static let id3Frames: [String: TagType] = [
        "TPE1": .artist, "TPE2": .albumArtist, "TSOP": .artistSort, "TSOA": .albumSort,
        "TSO2": .albumArtistSort, "TIT2": .title, "TALB": .album, "TRCK": .track, "TDRC": .date,
        "TDOR": .originalDate, "TCON": .genre, "TCOM": .composer, "TPE3": .conductor,
        "TPE4": .performer, "TIT1": .grouping, "COMM": .comment, "TPOS": .disc, "TPUB": .label,
        "TMOO": .mood,
    ]
}
