/// The id of a `songTag` row, which says whose value it is: the song, the tag type and the
/// value's place among that song's values of the type, packed as `song << 16 | tag << 10 | n`.
///
/// The trigram index (`songTagText`) is keyed by these ids, so a substring search turns its
/// hits into songs by arithmetic (`rowid >> 16`) instead of a seek into `songTag` per hit —
/// most of the time of a `search title` over 100,000 songs went into those seeks. Ids of one
/// song and type ascend in the file's order, which `ORDER BY id` relies on for a tag's first
/// value.
enum TagRowID {
    /// Bits for the value's place among the song's values of one type.
    static let valueBits = 10
    /// Bits for the tag type (`TagType.rawValue`; MPD 0.24 has 35 types).
    static let tagBits = 6
    /// How many values of one tag type one song can have in `songTag`; later ones are printed
    /// (they stay in `songTagList`) but cannot be filtered on.
    static let maximumValues = 1 << valueBits

    /// The id of the `index`th value (from 0) of tag type `tag` of `song`.
    static func make(song: Int64, tag: Int, index: Int) -> Int64 {
        song << Int64(tagBits + valueBits) | Int64(tag) << Int64(valueBits) | Int64(index)
    }

    /// SQL for the lowest row id of the song whose id is held in `column` (its first value of
    /// tag type 0): adding ``make(song:tag:index:)`` with song 0 gives the song's id of that place.
    static func firstOfSongSQL(_ column: String) -> String { "(\(column) << \(tagBits + valueBits))" }

    /// SQL for the song of a row id held in `column`.
    static func songSQL(_ column: String) -> String { "(\(column) >> \(tagBits + valueBits))" }

    /// SQL for the tag type of a row id held in `column`.
    static func tagSQL(_ column: String) -> String { "((\(column) >> \(valueBits)) & \((1 << tagBits) - 1))" }
}
