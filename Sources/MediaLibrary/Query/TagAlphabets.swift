import GRDB
import MusicModel

/// For each tag left out of the trigram index (numbers, dates, MusicBrainz identifiers: see
/// ``Schema/fullTextTags``), the bytes that occur in its folded values.
///
/// `search any contains "nig"` finds the indexed tags through the trigram index, but the others
/// through their rows: at 100,000 songs, half a million values tested one by one, ten times the
/// time of the indexed part. Their values are digits, dashes, slashes and hexadecimal letters;
/// a value can only contain a needle whose every byte it holds, so a tag none of whose values
/// holds the `n` of "nig" is left out of the search without reading its rows.
struct TagAlphabets: Sendable {
    /// A set of bytes.
    struct ByteSet: Sendable {
        private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

        /// Adds every byte of `bytes`.
        mutating func formUnion(_ bytes: UnsafeRawBufferPointer) {
            for byte in bytes {
                let bit = UInt64(1) << (byte & 63)
                switch byte >> 6 {
                case 0: words.0 |= bit
                case 1: words.1 |= bit
                case 2: words.2 |= bit
                default: words.3 |= bit
                }
            }
        }

        /// Whether every byte of `bytes` is in the set.
        func containsAll<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
            bytes.allSatisfy { byte in
                let bit = UInt64(1) << (byte & 63)
                switch byte >> 6 {
                case 0: return words.0 & bit != 0
                case 1: return words.1 & bit != 0
                case 2: return words.2 & bit != 0
                default: return words.3 & bit != 0
                }
            }
        }
    }

    /// The bytes of each unindexed tag's folded values; a tag without values has an empty set.
    let bytes: [TagType: ByteSet]

    /// The unindexed tags one of whose values may contain `folded` (a folded needle): those
    /// whose values hold each of its bytes.
    func tags(mayContain folded: String) -> [TagType] {
        Schema.unindexedTags.filter { bytes[$0]?.containsAll(folded.utf8) ?? true }
    }

    /// Reads the alphabets of the database state `db` reads: one pass over each unindexed tag's
    /// distinct folded values, in the `(tag, folded)` index.
    static func read(_ db: Database) throws -> TagAlphabets {
        var bytes: [TagType: ByteSet] = [:]
        for tag in Schema.unindexedTags {
            var set = ByteSet()
            try RawRow.forEach(
                db, "SELECT DISTINCT folded FROM songTag WHERE tag = ?", arguments: [Int64(tag.rawValue).databaseValue]
            ) { row in
                set.formUnion(row.blob(0))
            }
            bytes[tag] = set
        }
        return TagAlphabets(bytes: bytes)
    }
}

extension LibraryStore {
    /// The SQL condition for `filter` in the read transaction `db`: an `any` substring search
    /// leaves out the unindexed tags that cannot hold its needle (``TagAlphabets``).
    func condition(_ filter: FilterExpression, _ db: Database) throws -> SQLFragment {
        guard FilterSQL.needsAlphabets(filter) else { return FilterSQL.condition(filter) }
        return FilterSQL.condition(filter, stickers: SongStickerValues(), alphabets: try tagColumns.alphabets(db))
    }
}
