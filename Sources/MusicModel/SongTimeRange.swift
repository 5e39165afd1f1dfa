/// The part of a song that plays: from ``start`` seconds to ``end``, or to the song's end.
///
/// A queue entry has one (`rangeid` sets it, the state file keeps it as `Range:`), and the
/// player hands it to the pipeline; MPD keeps the same pair of `SongTime`s on each song of its
/// queue. What it looks like on the wire (`START:END` in `rangeid`, `Range: S.sss-E.sss` in a
/// song block, milliseconds in the state file) is for the parsers and printers to say.
package struct SongTimeRange: Sendable, Equatable {
    /// Where playback starts, in seconds.
    package var start: Double
    /// Where playback ends, in seconds, or `nil` for the end of the song.
    package var end: Double?

    /// Creates a range; the defaults are the whole song.
    package init(start: Double = 0, end: Double? = nil) {
        self.start = start
        self.end = end
    }

    /// The whole song.
    package static let whole = SongTimeRange()

    /// Whether it is the whole song, which MPD neither prints nor saves.
    package var isWhole: Bool { start == 0 && end == nil }

    /// The seconds that play of a song `duration` long (`nil` when neither the range's end nor
    /// the duration is known).
    package func length(of duration: Double?) -> Double? {
        if let end { return end - start }
        return duration.map { $0 - start }
    }
}
