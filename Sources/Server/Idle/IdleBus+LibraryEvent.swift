package import MediaLibrary
import MusicModel

extension IdleBus {
    /// Raises, for every client, the idle event a library event stands for; the library
    /// reports through this, since it knows nothing of the protocol's subsystems.
    package func emit(libraryEvent event: LibraryEvent) {
        switch event {
        case .update: emit(.update)
        case .database: emit(.database)
        case .sticker: emit(.sticker)
        // The queues that drop the songs raise `playlist` themselves.
        case .songsRemoved: break
        }
    }
}
