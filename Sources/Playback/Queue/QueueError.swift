/// Why an edit of the queue, or a choice of a song in it, was refused (the part of MPD's
/// `PlaylistResult` that concerns the queue).
///
/// Positions and ids fail differently on purpose: a position outside the queue is a bad
/// index, an id that names no entry is a song that does not exist, as MPD tells them apart.
package enum QueueError: Error, Sendable, Equatable {
    /// A position, or a range of positions, lies outside the queue (or a move's destination
    /// leaves no room for what moves).
    case badSongIndex
    /// No queue entry has the id given.
    case noSuchSong
    /// The queue holds `max_playlist_length` songs: nothing more fits. Songs added before it
    /// filled up stay.
    case tooLarge
    /// `rangeid` on the song that is playing: its range cannot change under the decoder.
    case cannotEditCurrentSong
    /// A range starts after the end of its song, whose duration is known.
    case startPastSongEnd
    /// `addtagid` or `cleartagid` on a file: only a stream's tags may be edited, since a
    /// file's come from the file.
    case localFileTags
    /// `seek` or `seekid` into a live stream, which has no position to go to.
    case notSeekable
}
