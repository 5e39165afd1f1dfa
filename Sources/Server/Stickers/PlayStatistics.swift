import Dispatch
import Foundation
package import Logging
package import MediaLibrary
import MusicModel
import Playback
import ServiceLifecycle
import Synchronization

/// Keeps the play statistics as song stickers (`sticker_play_stats`, a Tonearm option): the
/// server counts what clients such as myMPD otherwise count themselves, so every client sees
/// the same numbers, including plays started by `mpc` or a phone app. While a client that counts
/// for itself is connected (``PlayCountingClients``), it stands aside, so that no play counts
/// twice.
///
/// The names are myMPD's: `playCount` and `skipCount` (integers, incremented), `lastPlayed`
/// (Unix time). A song counts as played once half of it, or four minutes, has been heard
/// (the rule scrobblers use); as skipped when the user moved on to another song before that.
/// A song that ends by itself, is stopped or removed before the mark counts as neither.
///
/// The player reports from under its lock's caller; the writes happen here, on a serial queue,
/// so neither the player nor a session waits for the sticker file. As a service it lasts as long
/// as the server: at shutdown it waits for the writes still queued.
///
/// Each write raises idle `sticker`, at most once per ``eventInterval``: a client such as
/// Cantata answers every such event by fetching the rating of each queue row it shows, and a
/// burst of short songs would otherwise cost it a round of fetches per song. The first write
/// after a quiet spell raises it at once; later ones within the interval share one event at its
/// end.
package final class PlayStatistics: Service, CustomStringConvertible {
    /// What one listening amounts to.
    enum Outcome: Equatable {
        case played
        case skipped
        case neither
    }

    /// The name ServiceLifecycle logs.
    package var description: String { "PlayStatistics" }

    /// Heard this long, any song counts as played.
    static let playedAfter = 240.0
    /// The least time between two `sticker` events of the statistics.
    static let eventInterval = DispatchTimeInterval.seconds(5)

    /// The clients that count plays themselves: while one is connected, this stands aside.
    package let countingClients = PlayCountingClients()
    private let stickers: StickerStore
    private let idleBus: IdleBus
    private let logger: Logger
    private let now: @Sendable () -> Int64
    private let queue = DispatchQueue(label: "tonearm.play-statistics", qos: .utility)
    /// When the last `sticker` event was raised, and whether one is due at the interval's end.
    private let events = Mutex<(last: DispatchTime?, scheduled: Bool)>((nil, false))

    /// Creates the keeper.
    /// - Parameter now: the Unix time for `lastPlayed` (a test fixes it).
    package init(
        stickers: StickerStore, idleBus: IdleBus, logger: Logger,
        now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.stickers = stickers
        self.idleBus = idleBus
        self.logger = logger
        self.now = now
    }

    /// What a listening counts as.
    static func outcome(of listening: SongListening) -> Outcome {
        let mark = min(listening.duration.map { $0 / 2 } ?? playedAfter, playedAfter)
        if listening.heardSeconds >= mark { return .played }
        return listening.leftByUser ? .skipped : .neither
    }

    /// Records a listening; returns at once.
    func record(_ listening: SongListening) {
        let outcome = Self.outcome(of: listening)
        // Only songs of the music database have song stickers (not `file://` or streams).
        guard outcome != .neither, LibraryURI.isSafeLocal(listening.uri), !listening.uri.contains("://") else { return }
        // A client that counts for itself (myMPD) counts this one: counting it too would
        // count it twice.
        guard !countingClients.any else { return }
        let time = now()
        queue.async { [self] in
            do {
                try stickers.writeBlocking { writer in
                    let uri = listening.uri
                    if outcome == .played {
                        try writer.add(1, type: "song", uri: uri, name: "playCount")
                        try writer.set(type: "song", uri: uri, name: "lastPlayed", value: String(time))
                    } else {
                        try writer.add(1, type: "song", uri: uri, name: "skipCount")
                    }
                }
                announce()
            } catch {
                logger.error("cannot update the play statistics of \(listening.uri): \(error)")
            }
        }
    }

    /// Raises `sticker` now, or at the end of the interval since the last one (once, however many
    /// writes come meanwhile). Runs on the queue.
    private func announce() {
        enum When { case now, at(DispatchTime), already }
        let now = DispatchTime.now()
        let when: When = events.withLock { events in
            if events.scheduled { return .already }
            if let last = events.last, now < last + Self.eventInterval {
                events.scheduled = true
                return .at(last + Self.eventInterval)
            }
            events.last = now
            return .now
        }
        switch when {
        case .already:
            break
        case .now:
            idleBus.emit(.sticker)
        case .at(let due):
            queue.asyncAfter(deadline: due) { [self] in
                events.withLock { $0 = (.now(), false) }
                idleBus.emit(.sticker)
            }
        }
    }

    /// Waits until every recorded listening is written.
    func flush() {
        queue.sync {}
    }

    /// Runs until graceful shutdown, then writes what is still queued, so that the songs heard
    /// until the server stopped are counted.
    package func run() async throws {
        try? await gracefulShutdown()
        flush()
    }
}
