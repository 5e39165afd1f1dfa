import MusicModel

/// How long one song was listened to, reported when it stops being the current song.
///
/// The player says what happened; what counts as "played" or "skipped" (the play statistics
/// stickers) is decided by whoever listens, so that the player knows nothing of stickers.
package struct SongListening: Sendable, Equatable {
    /// The song's URI.
    package var uri: String
    /// The length of what plays of the song (its range, or the whole song), when known.
    package var duration: Double?
    /// The seconds of it actually heard: time played, not the position reached, so seeking
    /// forward does not count and pauses do not either.
    package var heardSeconds: Double
    /// Whether the user moved on to another song (`next`, `previous`, `play`, `playid`,
    /// `seek` to another song) rather than the song ending, being stopped or removed.
    package var leftByUser: Bool

    /// Creates a report.
    package init(uri: String, duration: Double?, heardSeconds: Double, leftByUser: Bool) {
        self.uri = uri
        self.duration = duration
        self.heardSeconds = heardSeconds
        self.leftByUser = leftByUser
    }
}

/// The song the player is listening to now: which queue entry, and the pipeline's count of
/// seconds played when it began.
struct ListeningRecord: Sendable {
    let entryID: Int
    let uri: String
    let duration: Double?
    let playedAtStart: Double
}

extension PlayerCore {
    /// Starts counting for the song at play-order `index`, unless that entry is the one being
    /// counted already (a seek within the song, or `play` of the playing song).
    mutating func beginListening(atOrder index: Int) {
        let entry = queue.entry(atOrder: index)
        guard listening?.entryID != entry.id else { return }
        endListening(leftByUser: false)
        listening = ListeningRecord(
            entryID: entry.id, uri: entry.song.uri, duration: entry.playedDuration,
            playedAtStart: pipeline.playedSeconds)
    }

    /// Ends the count for the current song and reports it.
    mutating func endListening(leftByUser: Bool) {
        guard let record = listening else { return }
        listening = nil
        let heard = max(0, pipeline.playedSeconds - record.playedAtStart)
        listened.append(
            SongListening(
                uri: record.uri, duration: record.duration, heardSeconds: heard,
                leftByUser: leftByUser))
    }

    /// Ends the count as the user's choice when the song at play-order `index`, about to be
    /// played on a command, is another entry than the one being heard.
    mutating func leaveForUserChoice(atOrder index: Int) {
        guard let record = listening, queue.id(atOrder: index) != record.entryID else { return }
        endListening(leftByUser: true)
    }
}
