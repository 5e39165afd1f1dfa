import Foundation
import MusicModel

/// MPD's tag fallbacks (`src/tag/Fallback.hxx`): which tags stand in for one a song lacks,
/// when filtering, listing and sorting.
enum TagFallback {
    /// The tags tried, in order, when a song has no value for `tag`.
    static func chain(for tag: TagType) -> [TagType] {
        switch tag {
        case .albumArtistSort: [.albumArtist, .artistSort, .artist]
        case .albumArtist, .artistSort: [.artist]
        case .albumSort: [.album]
        case .titleSort: [.title]
        case .composerSort: [.composer]
        default: []
        }
    }

    /// The values a song contributes for `tag`: its own, else those of the first fallback it
    /// has, else none.
    static func effectiveValues(of tag: TagType, in tags: [TagValue]) -> [String] {
        for candidate in [tag] + chain(for: tag) {
            let values = tags.filter { $0.type == candidate }.map(\.value)
            if !values.isEmpty { return values }
        }
        return []
    }
}

/// The byte-wise order MPD's `list` and `sort` use (`strcmp`, `std::map<std::string>`).
enum ByteOrder {
    /// Whether `a` sorts before `b` by UTF-8 bytes.
    static func precedes(_ a: String, _ b: String) -> Bool {
        // Native strings are contiguous UTF-8: compare the bytes as `strcmp` would, with memcmp.
        let fast = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                let common = min(x.count, y.count)
                let order = common == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, common)
                return order != 0 ? order < 0 : x.count < y.count
            }
        }
        return (fast ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}
