package import MusicModel

/// The edits of a stored playlist's entries, with MPD's checks and messages
/// (`PlaylistFileEditor`). They change the entries only when they succeed.
extension StoredPlaylists {
    /// Inserts `uris` at `position` (`playlistadd … POSITION`, `searchaddpl … position POS`).
    /// - Throws: ``LibraryError/positionPastEnd(_:)``; ``LibraryError/playlistTooLarge``
    ///   when the playlist would pass `maximumLength`.
    package static func insert(
        _ uris: [String], at position: Int, into entries: inout [String], maximumLength: Int
    ) throws(LibraryError) {
        guard position <= entries.count else { throw .positionPastEnd(position) }
        guard entries.count + uris.count <= maximumLength else { throw .playlistTooLarge }
        entries.insert(contentsOf: uris, at: position)
    }

    /// Removes a position or range (`playlistdelete`). As in MPD (`RangeArg::CheckClip`), the
    /// end is clipped to the length and a start at the end removes nothing; only a start past
    /// the end is an error (``LibraryError/rangeStartPastEnd(_:)``).
    package static func remove(_ range: RangeArgument, from entries: inout [String]) throws(LibraryError) {
        let end = range.upperBound(clippedTo: entries.count)
        guard range.start <= end else { throw .rangeStartPastEnd(range.start) }
        entries.removeSubrange(range.start..<end)
    }

    /// Moves the entries in `range` so that the first lands at `destination`, counted after
    /// they were taken out (`playlistmove`).
    /// - Throws: ``LibraryError/rangeOutOfBounds`` when the range passes the end or the
    ///   destination does not fit.
    package static func move(_ range: Range<Int>, to destination: Int, in entries: inout [String]) throws(LibraryError)
    {
        guard range.upperBound <= entries.count, destination <= entries.count - range.count else {
            throw .rangeOutOfBounds
        }
        let moved = Array(entries[range])
        entries.removeSubrange(range)
        entries.insert(contentsOf: moved, at: destination)
    }
}
