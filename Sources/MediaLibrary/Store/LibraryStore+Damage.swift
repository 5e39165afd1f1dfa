import Foundation
import GRDB

/// A damaged database file — truncated, overwritten, not a database at all — is no reason to
/// stop serving: the library is a cache of the music folder and can be scanned again. Stickers
/// and stored playlists live in files of their own and are not touched.
extension LibraryStore {
    /// Whether SQLite said the file is damaged (`SQLITE_CORRUPT`) or no database
    /// (`SQLITE_NOTADB`), rather than, say, unreadable or locked.
    static func isDamage(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB
    }

    /// Moves the database at `path`, with its WAL and shared-memory files, to
    /// `PATH.damaged` (replacing an older one), so that a new one can be made in its place and
    /// the damaged one is still there to look at.
    /// - Returns: the path it was moved to.
    static func moveAside(_ path: String) throws -> String {
        let aside = path + ".damaged"
        for suffix in ["", "-wal", "-shm"] {
            guard FileManager.default.fileExists(atPath: path + suffix) else { continue }
            if FileManager.default.fileExists(atPath: aside + suffix) {
                try FileManager.default.removeItem(atPath: aside + suffix)
            }
            try FileManager.default.moveItem(atPath: path + suffix, toPath: aside + suffix)
        }
        return aside
    }

    /// SQLite's `quick_check` of every page: nil when the database is intact, else the first
    /// problem it reports. Reads the whole file (a quarter of a second at 100,000 songs).
    func firstDamage() throws -> String? {
        let verdict = try read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") } ?? "no answer"
        guard verdict != "ok" else { return nil }
        // One line for the log, without the `*** in database main ***` heading.
        return verdict.split(separator: "\n").filter { !$0.hasPrefix("***") }.joined(separator: "; ")
    }

    /// Replaces every page of the database with those of an empty one of the current schema,
    /// through SQLite's backup API, which writes the pages without reading the damaged ones:
    /// the pool and its connections stay, and the next update fills the library again.
    /// - Parameter copy: where the damaged file is copied first.
    func reset(keepingCopyAt copy: String, of path: String) throws {
        if FileManager.default.fileExists(atPath: copy) { try FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        let empty = try DatabaseQueue()
        try Schema.migrator.migrate(empty)
        // The new database's generations go on from the newest the cache has seen: counting
        // from 0 again, its states would be older than the cache's, and nothing built for
        // them would be kept until the count caught up.
        try empty.write { try Self.setMeta($0, "generation", tagColumns.generationSeen + 1) }
        try empty.backup(to: pool)
        tagColumns.removeAll()
    }
}
