package import MusicModel
package import Settings

/// What the state file keeps of a player: the queue, the position in it and the modes
/// (MPD's `playlist_state_save`, the software volume and the output states).
package struct SavedPlayerState: Sendable, Equatable {
    /// One queue entry as saved: its URI and what the queue added to the song.
    package struct Entry: Sendable, Equatable {
        /// The song URI.
        package var uri: String
        /// The entry's priority.
        package var priority: UInt8 = 0
        /// The part of the song that plays, set with `rangeid`.
        package var range: SongTimeRange
        /// A stream's tags (what it said last, or `addtagid` set): no database has them.
        package var tags: [TagValue]

        /// Creates an entry.
        package init(uri: String, priority: UInt8 = 0, range: SongTimeRange = .whole, tags: [TagValue] = []) {
            self.uri = uri
            self.priority = priority
            self.range = range
            self.tags = tags
        }
    }

    /// `sw_volume`: the software mixer's volume.
    package var softwareVolume = 100
    /// `audio_device_state`: each output's name and whether it is enabled.
    package var outputs: [(name: String, enabled: Bool)] = []
    /// `state`.
    package var state = PlayState.stop
    /// `current`: the queue position of the current song.
    package var current: Int?
    /// `time`: the elapsed seconds in the current song.
    package var elapsed: Double = 0
    /// `random`.
    package var random = false
    /// `shufflemode` (Tonearm's line, which MPD skips); `nil` in a file without it, which
    /// means the configured mode.
    package var shuffleMode: ShuffleMode?
    /// `repeat`.
    package var repeatMode = false
    /// `single`.
    package var single = SingleMode.off
    /// `consume`.
    package var consume = ConsumeMode.off
    /// `crossfade` seconds.
    package var crossfade = 0
    /// `mixrampdb`.
    package var mixRampDB: Float = 0
    /// `mixrampdelay`; negative when off.
    package var mixRampDelay: Float = -1
    /// `lastloadedplaylist`.
    package var lastLoadedPlaylist = ""
    /// The queue, in position order.
    package var entries: [Entry] = []

    /// Creates a default (stopped, empty) state.
    package init() {}

    package static func == (a: SavedPlayerState, b: SavedPlayerState) -> Bool {
        a.softwareVolume == b.softwareVolume && a.outputs.map(\.name) == b.outputs.map(\.name)
            && a.outputs.map(\.enabled) == b.outputs.map(\.enabled) && a.state == b.state && a.current == b.current
            && a.elapsed == b.elapsed && a.random == b.random && a.shuffleMode == b.shuffleMode
            && a.repeatMode == b.repeatMode && a.single == b.single
            && a.consume == b.consume && a.crossfade == b.crossfade && a.mixRampDB == b.mixRampDB
            && a.mixRampDelay == b.mixRampDelay && a.lastLoadedPlaylist == b.lastLoadedPlaylist
            && a.entries == b.entries
    }
}
