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
    /// Where playback of the song starts, in seconds (`rangeid`).
    package var startTime: Double = 0
    /// Where playback of the song ends, in seconds, or `nil` for the song's end.
    package var endTime: Double?

    /// The length that plays: the range when there is one, the song's duration otherwise.
    package var playedDuration: Double? {
        if let endTime { return endTime - startTime }
        guard let duration = song.duration else { return nil }
        return duration - startTime
    }
}
