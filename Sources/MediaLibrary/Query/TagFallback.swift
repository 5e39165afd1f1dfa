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
