import Dispatch
import Foundation
package import Logging
package import MediaLibrary
import MusicModel
import Playback
import ServiceLifecycle

/// Keeps the play statistics as song stickers (`sticker_play_stats`, a Tonearm option): the
/// server counts what clients such as myMPD otherwise count themselves, so every client sees
/// the same numbers, including plays started by `mpc` or a phone app.
///
/// The names are myMPD's: `playCount` and `skipCount` (integers, incremented), `lastPlayed`
/// (Unix time). A song counts as played once half of it, or four minutes, has been heard
/// (the rule scrobblers use); as skipped when the user moved on to another song before that.
/// A song that ends by itself, is stopped or removed before the mark counts as neither.
///
/// The player reports from under its lock's caller; the writes happen here, on a serial queue,
/// so neither the player nor a session waits for the sticker file. As a service it lasts as long
/// as the server: at shutdown it waits for the writes still queued.
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

    private let stickers: StickerStore
    private let idleBus: IdleBus
    private let logger: Logger
    private let now: @Sendable () -> Int64
    private let queue = DispatchQueue(label: "tonearm.play-statistics", qos: .utility)

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
                idleBus.emit(.sticker)
            } catch {
                logger.error("cannot update the play statistics of \(listening.uri): \(error)")
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
