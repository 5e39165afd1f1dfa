import Synchronization

/// The connected clients that keep the play statistics themselves, as myMPD does: while one is
/// connected, Tonearm's own statistics (``PlayStatistics``) stand aside, so that a play or a skip
/// is counted once. A client joins by writing one of the statistics' stickers (`sticker set`,
/// `inc` or `dec` of `playCount`, `skipCount` or `lastPlayed` on a song) and leaves when it
/// disconnects; clients that never write them change nothing, and with none connected the
/// server counts again.
package final class PlayCountingClients: Sendable {
    /// The sticker names whose writing makes a client one that counts for itself.
    static let names: Set<String> = ["playCount", "skipCount", "lastPlayed"]

    private let count = Mutex(0)

    /// Creates an empty set.
    package init() {}

    /// Whether any connected client counts for itself.
    package var any: Bool { count.withLock { $0 > 0 } }

    /// A client wrote a statistics sticker for the first time in its session.
    func join() { count.withLock { $0 += 1 } }

    /// A client that had joined disconnected.
    func leave() { count.withLock { $0 = max(0, $0 - 1) } }

    /// Notes that `session` wrote sticker `name` of `type`; it joins on its first such write.
    func noteWrite(type: String, name: String, session: inout SessionState) {
        guard type == "song", Self.names.contains(name), !session.countsPlays else { return }
        session.countsPlays = true
        join()
    }
}
