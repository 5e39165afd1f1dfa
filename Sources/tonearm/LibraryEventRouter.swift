import MediaLibrary
import Playback
import Server
import Synchronization

/// Takes the library's events to the idle bus and, once the server's partitions exist, the
/// songs an update removed to every queue, which drops them as MPD's `StaleSong` does. The
/// library starts before the partitions (its first scan may already run), so they are
/// connected later; a removal before then finds no queue to change.
final class LibraryEventRouter: Sendable {
    private let idleBus: IdleBus
    private let partitions = Mutex<PartitionSet?>(nil)

    /// A router to `idleBus`.
    init(idleBus: IdleBus) {
        self.idleBus = idleBus
    }

    /// From now on, removed songs leave these partitions' queues.
    func connect(_ partitions: PartitionSet) {
        self.partitions.withLock { $0 = partitions }
    }

    /// Called by the library, on its update queue.
    func handle(_ event: LibraryEvent) {
        if case .songsRemoved(let uris) = event, let partitions = partitions.withLock({ $0 }) {
            for partition in partitions.all { partition.player.removeStale(uris) }
        }
        idleBus.emit(libraryEvent: event)
    }
}
