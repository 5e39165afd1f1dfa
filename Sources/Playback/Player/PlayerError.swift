/// Why the player refused a command that needs playback (MPD's `PlaylistResult::NOT_PLAYING`).
package enum PlayerError: Error, Sendable, Equatable {
    /// Stopped (or nothing selected), where the command moves within what plays: `next`,
    /// `previous`, `seekcur`.
    case notPlaying
}

/// Why the volume could not be read or changed.
package enum MixerError: Error, Sendable, Equatable {
    /// No output of the partition has a mixer, hardware or software.
    case noMixer
}
