/// Why the player refused a command that needs playback (MPD's `PlaylistResult::NOT_PLAYING`).
package enum PlayerError: Error, Sendable, Equatable {
    /// Stopped (or nothing selected), where the command moves within what plays: `next`,
    /// `previous`, `seekcur`.
    case notPlaying
    /// A seek into a live stream, which has no position to go to (MPD's `Not seekable`).
    case notSeekable
}

/// Why the volume could not be read or changed.
package enum MixerError: Error, Sendable, Equatable {
    /// No output of the partition has a mixer, hardware or software.
    case noMixer
}
