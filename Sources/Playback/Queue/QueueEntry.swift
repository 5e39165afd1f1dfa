package import MusicModel

/// One entry of the queue: a song with its queue id, priority and change version.
package struct QueueEntry: Sendable, Equatable {
    /// The song as it was when it was added.
    package var song: Song
    /// The entry's id: unique while it is in the queue, never reused soon after.
    package let id: Int
    /// The queue version at which the entry last changed (`plchanges`).
    package var version: UInt32
    /// The priority (0–255); in random mode higher priorities play first.
    package var priority: UInt8
    /// The part of the song that plays (`rangeid`).
    package var range = SongTimeRange.whole

    /// The length that plays: the range's when it has an end, the rest of the song otherwise.
    package var playedDuration: Double? { range.length(of: song.duration) }
}
