/// The subsystems a client can wait for with `idle`, as a bit set in MPD's bit order.
///
/// Part of the shared vocabulary rather than the protocol because the player and the library
/// raise these events without knowing how a client is told of them; the names `idle` takes
/// and prints are MPDProtocol's (`IdleSubsystems+Names.swift`). The bit order is MPD's, which
/// is also the order `changed:` lines are written in.
public struct IdleSubsystems: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32

    /// Creates a set from MPD's bit values.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The song database changed after an update.
    public static let database = IdleSubsystems(rawValue: 0x1)
    /// A stored playlist was created, modified, renamed or deleted.
    public static let storedPlaylist = IdleSubsystems(rawValue: 0x2)
    /// The queue changed.
    public static let playlist = IdleSubsystems(rawValue: 0x4)
    /// Playback started, stopped, paused, seeked or moved to another song.
    public static let player = IdleSubsystems(rawValue: 0x8)
    /// The volume changed.
    public static let mixer = IdleSubsystems(rawValue: 0x10)
    /// An output was enabled, disabled, changed or moved.
    public static let output = IdleSubsystems(rawValue: 0x20)
    /// A playback option (repeat, random, …) changed.
    public static let options = IdleSubsystems(rawValue: 0x40)
    /// A sticker changed.
    public static let sticker = IdleSubsystems(rawValue: 0x80)
    /// A database update started or finished.
    public static let update = IdleSubsystems(rawValue: 0x100)
    /// A client subscribed to or unsubscribed from a channel.
    public static let subscription = IdleSubsystems(rawValue: 0x200)
    /// A message arrived on a channel this client subscribed to.
    public static let message = IdleSubsystems(rawValue: 0x400)
    /// A neighbor was found or lost.
    public static let neighbor = IdleSubsystems(rawValue: 0x800)
    /// The mount list changed.
    public static let mount = IdleSubsystems(rawValue: 0x1000)
    /// A partition was added, removed or changed.
    public static let partition = IdleSubsystems(rawValue: 0x2000)

    /// Every subsystem: what a bare `idle` waits for.
    public static let all = IdleSubsystems(rawValue: 0x3FFF)
}
