/// The subsystems a client can wait for with `idle`, as a bit set in MPD's bit order.
///
/// Part of the shared vocabulary rather than the protocol because the player and the library
/// raise these events without knowing how a client is told of them; the names `idle` takes
/// and prints are MPDProtocol's (`IdleSubsystems+Names.swift`). The bit order is MPD's, which
/// is also the order `changed:` lines are written in.
package struct IdleSubsystems: OptionSet, Sendable, Hashable {
    package let rawValue: UInt32

    /// Creates a set from MPD's bit values.
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// The song database changed after an update.
    package static let database = IdleSubsystems(rawValue: 0x1)
    /// A stored playlist was created, modified, renamed or deleted.
    package static let storedPlaylist = IdleSubsystems(rawValue: 0x2)
    /// The queue changed.
    package static let playlist = IdleSubsystems(rawValue: 0x4)
    /// Playback started, stopped, paused, seeked or moved to another song.
    package static let player = IdleSubsystems(rawValue: 0x8)
    /// The volume changed.
    package static let mixer = IdleSubsystems(rawValue: 0x10)
    /// An output was enabled, disabled, changed or moved.
    package static let output = IdleSubsystems(rawValue: 0x20)
    /// A playback option (repeat, random, …) changed.
    package static let options = IdleSubsystems(rawValue: 0x40)
    /// A sticker changed.
    package static let sticker = IdleSubsystems(rawValue: 0x80)
    /// A database update started or finished.
    package static let update = IdleSubsystems(rawValue: 0x100)
    /// A client subscribed to or unsubscribed from a channel.
    package static let subscription = IdleSubsystems(rawValue: 0x200)
    /// A message arrived on a channel this client subscribed to.
    package static let message = IdleSubsystems(rawValue: 0x400)
    /// A neighbor was found or lost.
    package static let neighbor = IdleSubsystems(rawValue: 0x800)
    /// The mount list changed.
    package static let mount = IdleSubsystems(rawValue: 0x1000)
    /// A partition was added, removed or changed.
    package static let partition = IdleSubsystems(rawValue: 0x2000)

    /// Every subsystem: what a bare `idle` waits for.
    package static let all = IdleSubsystems(rawValue: 0x3FFF)
}
