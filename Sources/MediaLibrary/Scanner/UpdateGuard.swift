/// Keeps an update from emptying the library because the music is away, not gone: a NAS that
/// is offline, a USB disk not yet mounted at boot, a mount point inside the music folder that
/// is empty. MPD deletes every song then, and with them the queue's entries and the songs'
/// stickers; Tonearm refuses the update, keeps the library as it was, and says why in the log
/// and in `status`, until the music is back.
struct UpdateGuard: Sendable {
    /// `update_guard`: off, updates delete what is missing, as MPD's do.
    let enabled: Bool

    /// Fewer removals than this are never "most of the library": a small library may lose a
    /// few songs at once without anything being away.
    static let fewestRemovalsRefused = 50

    /// Refuses an update when the music folder cannot be read while the database holds songs;
    /// an empty folder too, unless the update is a `rescan`, the user's way to say that the
    /// music really is gone.
    /// - Parameter songs: the songs in the database before the update.
    func check(_ folder: MusicDirectoryCheck, path: String, songs: Int, rescan: Bool) throws(LibraryError) {
        guard enabled, songs > 0 else { return }
        switch folder {
        case .usable:
            return
        case .missing(let reason):
            throw .updateRefused("music directory \(path): \(reason); the library keeps its \(songs) songs")
        case .unusable(let problem, _):
            throw .updateRefused("\(problem); the library keeps its \(songs) songs")
        case .empty:
            guard !rescan else { return }
            throw .updateRefused(
                "music directory \(path) is empty; the library keeps its \(songs) songs (rescan empties it)")
        }
    }

    /// Refuses an update that would remove more than half of the library's songs (and at least
    /// ``fewestRemovalsRefused``), unless it is a `rescan`. Called inside the update's
    /// transaction, so that the refusal rolls everything back.
    func check(removing removed: Int, of songs: Int, rescan: Bool) throws(LibraryError) {
        guard enabled, !rescan, removed >= Self.fewestRemovalsRefused, removed * 2 > songs else { return }
        throw .updateRefused(
            "the update would remove \(removed) of the library's \(songs) songs; it keeps them (rescan removes them)")
    }
}
