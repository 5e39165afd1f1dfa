import MusicModel

/// Where playback is in the current song, as `status` and a relative `seekcur` read it.
extension PlayerCore {
    /// The seconds played of the queue entry at play-order `index`, counted from the start of
    /// its range, read from the pipeline's `pipelineStatus`.
    ///
    /// The pipeline goes on to the queued track at the border by itself, or runs out after the
    /// last one, and tells the player through an event (`.started`, `.finished`) that crosses
    /// the events thread. Until it arrives, the pipeline's track is another entry's, or none,
    /// and its position is not this entry's: read as this entry's, `elapsed` would go a whole
    /// song back, to 0, for that moment (seen in `test_pulse_clock.py`; Debian's MPD 0.23 shows
    /// a like jump near a border, `test_playback.py`). The entry has ended then, so its played
    /// duration is where it is; a stream, whose length is unknown, takes the position it will
    /// have a moment later anyway.
    func elapsed(ofEntryAtOrder index: Int, in pipelineStatus: PipelineStatus) -> Double {
        let entry = queue.entry(atOrder: index)
        if pipelineStatus.track?.token != entry.id, let played = entry.playedDuration {
            return played
        }
        return max(0, pipelineStatus.elapsed - (pipelineStatus.track?.start ?? entry.range.start))
    }
}
