/// `single`: whether playback stops (or repeats) after the current song.
package enum SingleMode: String, Sendable, Equatable, CaseIterable {
    /// Play on.
    case off = "0"
    /// Stop after each song; with `repeat`, repeat the one song.
    case on = "1"
    /// Stop after the current song, then switch back to `off`.
    case oneshot

    /// Parses the protocol's spelling (`0`, `1`, `oneshot`).
    package init?(protocolValue: String) { self.init(rawValue: protocolValue) }
}

/// `consume`: whether played songs leave the queue.
package enum ConsumeMode: String, Sendable, Equatable, CaseIterable {
    /// Keep played songs.
    case off = "0"
    /// Remove each song once it has been played.
    case on = "1"
    /// Remove the current song once it has been played, then switch back to `off`.
    case oneshot

    /// Parses the protocol's spelling (`0`, `1`, `oneshot`).
    package init?(protocolValue: String) { self.init(rawValue: protocolValue) }
}

/// The player's state as `status` names it.
package enum PlayState: String, Sendable, Equatable {
    /// Nothing plays (a current song may still be selected).
    case stop
    /// A song plays.
    case play
    /// A song is paused.
    case pause
}
