public import MPDProtocol
public import MusicModel

/// The edits of a stored playlist's entries, with MPD's checks and messages
/// (`PlaylistFileEditor`). They change the entries only when they succeed.
extension StoredPlaylists {
    /// Inserts `uris` at `position` (`playlistadd … POSITION`, `searchaddpl … position POS`).
    /// - Throws: `Bad position` (ACK 2) past the end; `Stored playlist is too large` (ACK 51)
    ///   when the playlist would pass `maximumLength`.
    public static func insert(
        _ uris: [String], at position: Int, into entries: inout [String], maximumLength: Int
    ) throws(MPDError) {
        guard position <= entries.count else { throw MPDError(.argument, "Bad position") }
        guard entries.count + uris.count <= maximumLength else { throw tooLarge }
        entries.insert(contentsOf: uris, at: position)
    }

    /// Removes a position or range (`playlistdelete`). As in MPD (`RangeArg::CheckClip`), the
    /// end is clipped to the length and a start at the end removes nothing; only a start past
    /// the end is `Bad song index`.
    public static func remove(_ range: RangeArgument, from entries: inout [String]) throws(MPDError) {
        let end = range.upperBound(clippedTo: entries.count)
        guard range.start <= end else { throw MPDError(.argument, "Bad song index") }
        entries.removeSubrange(range.start..<end)
    }

    /// Moves the entries in `range` so that the first lands at `destination`, counted after
    /// they were taken out (`playlistmove`).
    /// - Throws: `Bad range` (ACK 2) when the range passes the end or the destination does not
    ///   fit, as MPD 0.23 words it for one position.
    public static func move(_ range: Range<Int>, to destination: Int, in entries: inout [String]) throws(MPDError) {
        guard range.upperBound <= entries.count, destination <= entries.count - range.count else {
            throw MPDError(.argument, "Bad range")
        }
        let moved = Array(entries[range])
        entries.removeSubrange(range)
        entries.insert(contentsOf: moved, at: destination)
    }
}
