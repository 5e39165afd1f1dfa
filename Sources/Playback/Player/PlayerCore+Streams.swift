import MusicModel

/// What is particular to queued streams: their tags (what the stream itself says while it
/// plays: a station's name, the title on air, a remote file's own tags; and what clients set
/// with `addtagid` and `cleartagid`; a file's come from the database and never change here),
/// and a station's refusal to seek.
extension PlayerCore {
    /// `addtagid` and `cleartagid`: changes the tags of the stream with queue id `id`, as one
    /// change of the queue (MPD's `playlist::AddSongIdTag`).
    /// - Throws: ``QueueError/noSuchSong`` when no entry has the id,
    ///   ``QueueError/localFileTags`` when it is a file.
    mutating func editTags(id: Int, _ edit: (inout [TagValue]) -> Void) throws(QueueError) {
        guard let position = queue.position(ofID: id) else { throw .noSuchSong }
        var song = queue.song(at: position)
        guard song.isStream else { throw .localFileTags }
        edit(&song.tags)
        queue.setSong(position: position, song)
        modified()
    }

    /// The stream `token` plays said what it is. Its tags replace the queue entry's, as MPD's
    /// player replaces a remote song's tag with each one the decoder sends: clients hear
    /// `player` (the current song changed) and `playlist` (so did an entry of the queue). The
    /// duration and format are kept for `status` only, as MPD's queue keeps no duration for
    /// a stream.
    ///
    /// A description reaches the player only when its chunk is heard, after the `started` of
    /// its song (``ChunkInfo/described``), so it belongs to the current song or to none.
    mutating func streamDescribed(token: Int, _ description: StreamDescription) {
        guard let current, queue.id(atOrder: current) == token else { return }
        currentStream = (token, description)
        let position = queue.position(atOrder: current)
        var song = queue.song(at: position)
        // A stream that says nothing of itself keeps what its playlist said (a station's name
        // from a `.pls`), as MPD submits no empty tag.
        guard song.isStream, !description.tags.isEmpty, song.tags != description.tags else { return }
        song.tags = description.tags
        queue.setSong(position: position, song)
        modified()
        events.insert(.player)
    }

    /// A refused seek is a player error, as in MPD: `status` shows it (playback goes on) and
    /// clients hear `player`.
    mutating func refuseSeek() {
        error = "Not seekable"
        events.insert(.player)
    }

    /// Whether the song at `position` is the current one and a stream that turned out to have
    /// no length (a station on air): a seek into it is refused, as MPD refuses it, rather than
    /// connecting again and failing. Seeking to 0 starts it again. Another stream is tried, as
    /// MPD tries it: a remote file seeks.
    func isLiveStream(atPosition position: Int) -> Bool {
        guard let stream = currentStream, stream.token == queue.id(at: position) else { return false }
        return stream.description.duration == nil
    }
}
