/// What the state file keeps of a player: the queue, the position in it and the modes
/// (MPD's `playlist_state_save`, the software volume and the output states).
public struct SavedPlayerState: Sendable, Equatable {
    /// One queue entry as saved: its URI and what the queue added to the song.
    public struct Entry: Sendable, Equatable {
        /// The song URI.
        public var uri: String
        /// The entry's priority.
        public var priority: UInt8 = 0
        /// The played range in seconds, when one was set with `rangeid`.
        public var range: (start: Double, end: Double?)?

        /// Creates an entry.
        public init(uri: String, priority: UInt8 = 0, range: (start: Double, end: Double?)? = nil) {
            self.uri = uri
            self.priority = priority
            self.range = range
        }

        public static func == (a: Entry, b: Entry) -> Bool {
            a.uri == b.uri && a.priority == b.priority && a.range?.start == b.range?.start
                && a.range?.end == b.range?.end
        }
    }

    /// `sw_volume`: the software mixer's volume.
    public var softwareVolume = 100
    /// `audio_device_state`: each output's name and whether it is enabled.
    public var outputs: [(name: String, enabled: Bool)] = []
    /// `state`.
    public var state = PlayState.stop
    /// `current`: the queue position of the current song.
    public var current: Int?
    /// `time`: the elapsed seconds in the current song.
    public var elapsed: Double = 0
    /// `random`.
    public var random = false
    /// `repeat`.
    public var repeatMode = false
    /// `single`.
    public var single = SingleMode.off
    /// `consume`.
    public var consume = ConsumeMode.off
    /// `crossfade` seconds.
    public var crossfade = 0
    /// `mixrampdb`.
    public var mixRampDB: Float = 0
    /// `mixrampdelay`; negative when off.
    public var mixRampDelay: Float = -1
    /// `lastloadedplaylist`.
    public var lastLoadedPlaylist = ""
    /// The queue, in position order.
    public var entries: [Entry] = []

    /// Creates a default (stopped, empty) state.
    public init() {}

    public static func == (a: SavedPlayerState, b: SavedPlayerState) -> Bool {
        a.softwareVolume == b.softwareVolume && a.outputs.map(\.name) == b.outputs.map(\.name)
            && a.outputs.map(\.enabled) == b.outputs.map(\.enabled) && a.state == b.state && a.current == b.current
            && a.elapsed == b.elapsed && a.random == b.random && a.repeatMode == b.repeatMode && a.single == b.single
            && a.consume == b.consume && a.crossfade == b.crossfade && a.mixRampDB == b.mixRampDB
            && a.mixRampDelay == b.mixRampDelay && a.lastLoadedPlaylist == b.lastLoadedPlaylist
            && a.entries == b.entries
    }
}
