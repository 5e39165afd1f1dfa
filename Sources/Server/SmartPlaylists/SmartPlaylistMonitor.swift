import MusicModel
import ServiceLifecycle

/// Tells the clients when the songs of a smart playlist change: after an update changed the
/// database (`database`) or a sticker changed (`sticker`: a client's `sticker set`, the play
/// statistics, an update's cleanup), it evaluates every smart playlist again and, when one's
/// songs differ from the last look, raises `stored_playlist`, as MPD does when a stored
/// playlist's file changes. A client that shows the playlist then reads it again.
///
/// It looks at most once per ``interval``, so it raises at most one event a second: the first
/// change after a quiet spell is looked at at once, and the changes within the next second
/// share one look at its end. A burst of sticker writes (a client rating a whole album) costs
/// one evaluation, not one a write.
///
/// Time passing alone changes what a relative time (`-30d`) selects without raising anything;
/// the next look, or a client's next read, sees it.
package final class SmartPlaylistMonitor: Service, CustomStringConvertible {
    /// The least time between two looks, and so between two events.
    package static let interval = Duration.seconds(1)

    /// The name ServiceLifecycle logs.
    package var description: String { "SmartPlaylistMonitor" }

    private let catalog: SmartPlaylistCatalog
    private let idleBus: IdleBus
    /// The changes not looked at yet: one waiting is enough, however many came.
    private let changes: AsyncStream<Void>
    private let changed: AsyncStream<Void>.Continuation

    /// Creates the monitor; it follows the bus's events from now on and looks once it runs.
    package init(catalog: SmartPlaylistCatalog, idleBus: IdleBus) {
        self.catalog = catalog
        self.idleBus = idleBus
        (changes, changed) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        idleBus.observe([.database, .sticker]) { [changed] in changed.yield() }
    }

    /// Takes the first look (what later ones compare with), then looks after each change, at
    /// most once per ``interval``, until graceful shutdown.
    package func run() async throws {
        _ = await catalog.refreshContents()
        await withGracefulShutdownHandler {
            let clock = ContinuousClock()
            var last: ContinuousClock.Instant?
            for await _ in changes {
                if let last { try? await clock.sleep(until: last + Self.interval) }
                let changed = await catalog.refreshContents()
                // Counted from the end of the look, when its event goes out: a slow look
                // followed by a quick one cannot bring two events closer than the interval.
                last = clock.now
                if changed { idleBus.emit(.storedPlaylist) }
            }
        } onGracefulShutdown: { [changed] in
            changed.finish()
        }
    }
}
