import MusicModel

/// Gathers the tag values of one file: maps each format's native names to ``TagType``, keeps
/// only wanted tags, and cleans values the way MPD's tag builder does.
struct TagCollector {
    /// The tags to keep.
    let wanted: TagMask
    /// The values collected so far, in the order added.
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
        // Most values need nothing: without a control byte, and with printable ASCII at both
        // ends, no scalar changes and no end is white space (a grapheme cluster cannot start
        // with white space and end in printable ASCII). Building the scalars and trimming by
        // Character took a sixth of a rescan's time, even for values it left as they were.
        let bytes = raw.utf8
        if let first = bytes.first, let last = bytes.last, first > 0x20, first < 0x7F, last > 0x20, last < 0x7F,
            !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F })
        {
            return raw
        }
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

/// The name tables: which key of which tag format is which MPD tag, and where MPD's scanner for
/// each format reports it.
///
/// Song blocks print the tags in the order they were stored, and MPD stores them in the order
/// its decoder plugin reports them: Vorbis comments (FLAC, Ogg, Opus) in file order, but ID3
/// frames, FFmpeg metadata and libsndfile strings in a fixed order per plugin. The `…Rank`
/// functions give that order; the reader sorts by them before collecting.
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
        return TagType(name: lowered) ?? ffmpegNames[lowered]?.type
    }

    /// Where MPD's `FfmpegScanDictionary` reports a key of one metadata dictionary: it asks the
    /// dictionary for every MPD tag name in tag-type order, then for the names of its
    /// `ffmpeg_tags` table, then for the MusicBrainz descriptions; each name's entries come in
    /// dictionary order. Names Tonearm reads beyond MPD's come last.
    static func ffmpegRank(_ key: String) -> Int {
        let lowered = key.lowercased()
        if let type = TagType(name: lowered) { return type.rawValue }
        return TagType.allCases.count + (ffmpegNames[lowered]?.rank ?? ffmpegTable.count)
    }

    /// Where MPD's sndfile plugin (WAV, AIFF and the other formats libsndfile reads) reports a
    /// tag: it asks libsndfile for title, artist, comment, date, album, track number and genre,
    /// in that order. Tags libsndfile does not know (FFmpeg reads more) come after, in the
    /// order of ``ffmpegRank(_:)``.
    static func sndfileRank(_ type: TagType, key: String) -> Int {
        sndfileOrder.firstIndex(of: type) ?? sndfileOrder.count + ffmpegRank(key)
    }

    /// The FFmpeg demuxers of the formats MPD decodes with libsndfile rather than FFmpeg.
    static let sndfileFormats: Set<String> = ["wav", "w64", "aiff", "au", "caf", "voc"]

    /// The tag of an ID3v2 frame, following MPD's `scan_id3_tag`; nil for frames MPD ignores.
    static func id3(_ frame: ID3Frame) -> TagType? {
        switch frame.id {
        case "TXXX": musicBrainzDescriptions[frame.description.lowercased()]
        case "UFID": frame.description == "http://musicbrainz.org" ? .musicBrainzTrackID : nil
        default: id3Frames[frame.id]?.type
        }
    }

    /// Where MPD's `scan_id3_tag` reports a frame: it walks its frame list (artist, album
    /// artist, the sort names, title, album, track, date, …, disc, label, mood) taking every
    /// frame of each ID in file order, then the MusicBrainz TXXX frames, then UFID.
    static func id3Rank(_ frame: ID3Frame) -> Int {
        switch frame.id {
        case "TXXX": id3Table.count
        case "UFID": id3Table.count + 1
        default: id3Frames[frame.id]?.rank ?? id3Table.count + 2
        }
    }

    /// MPD's `xiph_tags`: names that differ from MPD's own tag names.
    private static let xiph: [String: TagType] = [
        "tracknumber": .track, "discnumber": .disc, "description": .comment,
        "movementname": .movement, "movement": .movementNumber,
    ]

    /// The FFmpeg names that are not MPD tag names, in the order MPD's FFmpeg plugin asks for
    /// them: its `ffmpeg_tags` table (id3v2.c and mov.c names), then `musicbrainz_txxx_tags`
    /// (ID3 TXXX and MP4 freeform descriptions, lowercased), then Tonearm's additions.
    private static let ffmpegTable: [(name: String, type: TagType)] =
        [
            ("album_artist", .albumArtist), ("album-sort", .albumSort), ("artist-sort", .artistSort),
            ("sort_album_artist", .albumArtistSort), ("sort_album", .albumSort), ("sort_artist", .artistSort),
        ] + musicBrainzTable + [
            // Names FFmpeg leaves as they are when it reads ID3v2 (appended tags, ID3 in AIFF/WAV).
            ("tso2", .albumArtistSort), ("tdor", .originalDate), ("tory", .originalDate), ("tmoo", .mood),
            // APE tags (MPD's ApeTag table).
            ("album artist", .albumArtist), ("year", .date),
        ]

    /// MPD's `musicbrainz_txxx_tags`, lowercased, in MPD's order.
    private static let musicBrainzTable: [(name: String, type: TagType)] = [
        ("albumartistsort", .albumArtistSort),
        ("musicbrainz artist id", .musicBrainzArtistID),
        ("musicbrainz album id", .musicBrainzAlbumID),
        ("musicbrainz album artist id", .musicBrainzAlbumArtistID),
        ("musicbrainz track id", .musicBrainzTrackID),
        ("musicbrainz release track id", .musicBrainzReleaseTrackID),
        ("musicbrainz work id", .musicBrainzWorkID),
        ("musicbrainz release group id", .musicBrainzReleaseGroupID),
    ]

    /// ``ffmpegTable`` by name, with each name's position.
    private static let ffmpegNames = ranked(ffmpegTable)

    /// ``musicBrainzTable`` by description.
    private static let musicBrainzDescriptions = ranked(musicBrainzTable).mapValues(\.type)

    /// The strings MPD's sndfile plugin reads, in its order (`sndfile_tags`).
    private static let sndfileOrder: [TagType] = [.title, .artist, .comment, .date, .album, .track, .genre]

    /// ID3v2.4 text frames (v2.2/v2.3 names are mapped before) in the order MPD's
    /// `scan_id3_tag` imports them.
    private static let id3Table: [(name: String, type: TagType)] = [
        ("TPE1", .artist), ("TPE2", .albumArtist), ("TSOP", .artistSort), ("TSOA", .albumSort),
        ("TSO2", .albumArtistSort), ("TIT2", .title), ("TALB", .album), ("TRCK", .track), ("TDRC", .date),
        ("TDOR", .originalDate), ("TCON", .genre), ("TCOM", .composer), ("TPE3", .conductor),
        ("TPE4", .performer), ("TIT1", .grouping), ("COMM", .comment), ("TPOS", .disc), ("TPUB", .label),
        ("TMOO", .mood),
    ]

    /// ``id3Table`` by frame ID, with each frame's position.
    private static let id3Frames = ranked(id3Table)

    /// A table by name, with each entry's position; the first of a repeated name wins.
    private static func ranked(_ table: [(name: String, type: TagType)]) -> [String: (type: TagType, rank: Int)] {
        var result: [String: (type: TagType, rank: Int)] = [:]
        for (rank, entry) in table.enumerated() where result[entry.name] == nil {
            result[entry.name] = (entry.type, rank)
        }
        return result
    }
}

extension Array {
    /// The elements ordered by `rank`, keeping the order of elements of equal rank.
    func stablySorted(by rank: (Element) -> Int) -> [Element] {
        enumerated()
            .map { (rank: rank($0.element), offset: $0.offset, element: $0.element) }
            .sorted { ($0.rank, $0.offset) < ($1.rank, $1.offset) }
            .map(\.element)
    }
}
