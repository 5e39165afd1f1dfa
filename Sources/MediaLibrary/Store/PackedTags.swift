import Foundation
import MusicModel

/// A song's tags packed into one blob: the `tags` column of `songTagList`.
///
/// `songTag` keeps one row per value, which filters need (its indexes and the trigram index),
/// but a song's block then costs a seek per value, and `list`/`count … group` a join per song.
/// The same values packed per song are read with one row: printing a song is one seek, and a
/// whole-library grouping is one sequential scan of a narrow table.
///
/// The layout is ``PackedTagList``'s, which a queued ``Song`` holds.
enum PackedTags {
    /// The blob for `tags`, in their order.
    static func encode(_ tags: [TagValue]) -> Data {
        Data(PackedTagList.encode(tags))
    }
}
