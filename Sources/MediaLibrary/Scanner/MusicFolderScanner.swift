import Dispatch
import Foundation
import GRDB
import Logging
import MusicModel
import Synchronization

/// Brings the database in line with the music directory: MPD's `UpdateWalk`.
///
/// A scan runs in one write transaction, so readers keep seeing the previous database until it
/// commits, and a scan killed at any moment leaves that previous database behind. Tags are read
/// in batches on every core while the transaction waits; only the scanner writes.
struct MusicFolderScanner: Sendable {
    let store: LibraryStore
    let walker: DiskWalker
    /// The tags to keep (`metadata_to_use`).
    let tagMask: TagMask
    let logger: Logger
    /// What keeps an update from emptying the library while the music is away.
    var updateGuard = UpdateGuard(enabled: true)
    /// How many files are read before their rows are written.
    var batchSize = 512
    /// Whether the first scan of a library inserts its songs without their indexes
    /// (``Schema/dropForBulkInsert(_:)``); off only to compare with a scan row by row.
    var firstScanInBulk = true

    /// Updates the database below `uri` (`""` is everything).
    /// - Parameters:
    ///   - rescan: read files again even when their size and time are unchanged.
    ///   - progress: counts what the job does, and logs a progress line whenever its interval
    ///     has passed; the caller logs its summary.
    /// - Returns: whether the database changed; whether a song file was read, which MPD counts
    ///   as a change even when the file's rows stay as they were (idle `database`); and the
    ///   URIs of the songs it removed.
    /// - Throws: ``LibraryError/updateRefused(_:)`` when the music folder is away or the update
    ///   would remove most of the library (``UpdateGuard``); nothing changed then.
    func update(
        _ uri: String, rescan: Bool, now: Int64, progress: inout ScanProgress
    ) throws -> (changed: Bool, reread: Bool, removedSongs: [String]) {
        let folder = updateGuard.enabled ? MusicDirectoryCheck(path: walker.root) : .usable
        return try store.pool.write { db in
            let songsBefore = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM song") ?? 0
            try updateGuard.check(folder, path: walker.root, songs: songsBefore, rescan: rescan)
            // A scan inserts into four indexes and the trigram index at scattered places: with
            // SQLite's default 2 MiB of cache it kept evicting and rereading their pages (100,000
            // songs: 25 s, 21 s with 64 MiB). The cache shrinks back when the job ends, and the
            // update queue frees it once idle.
            let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
            try db.execute(sql: "PRAGMA cache_size = -65536")
            defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
            let writtenBefore = db.totalChangesCount
            var changes = ChangeCounter()
            switch walker.kind(of: uri) {
            case .missing:
                progress.walked = true
                try removeSubtree(uri, db, &changes, &progress)
            case .file(let file):
                let suffix = DiskWalker.suffix(of: file.uri)
                try ensureDirectories(for: file.uri, db, &changes)
                if walker.playlistSuffixes.contains(suffix) {
                    progress.files = 1
                    progress.walked = true
                    try syncPlaylists(under: nil, disk: [file], db, &changes)
                    progress.checked = 1
                } else if walker.songSuffixes.contains(suffix) {
                    progress.files = 1
                    progress.walked = true
                    try syncSongs(under: nil, disk: [file], rescan: rescan, now: now, db, &changes, &progress)
                } else {
                    progress.walked = true
                }
            case .directory(let mtime):
                let tree = walker.walk(uri, mtime: mtime) { tree in
                    progress.folders = tree.directories.count
                    progress.files = tree.songs.count + tree.playlists.count
                    report(&progress)
                }
                progress.walked = true
                // The first scan of a library (MPD's first start, or after `db_file` was
                // removed) fills empty tables: its songs go in without their secondary
                // indexes and trigram triggers, which are built once afterwards. Inserted one
                // row at a time, each song's ten tag rows went into three indexes and the
                // trigram index at scattered places: most of a first scan's time.
                let bulk = firstScanInBulk && songsBefore == 0 && !tree.songs.isEmpty
                let dropped = bulk ? try Schema.dropForBulkInsert(db) : nil
                try ensureDirectories(for: uri, db, &changes)
                try syncDirectories(under: uri, disk: tree.directories, db, &changes, &progress)
                try syncSongs(under: uri, disk: tree.songs, rescan: rescan, now: now, db, &changes, &progress)
                try syncPlaylists(under: uri, disk: tree.playlists, db, &changes)
                if let dropped { try Schema.restoreAfterBulkInsert(db, dropped) }
                progress.checked += tree.playlists.count
            }
            // Thrown inside the transaction: the removals, and all else, roll back.
            try updateGuard.check(removing: progress.removed, of: songsBefore, rescan: rescan)
            try pruneEmptyDirectories(db, &changes)
            let wroteRows = db.totalChangesCount != writtenBefore
            if changes.count > 0 {
                try WalkOrder.recompute(db)
                try LibraryStatistics.refresh(db, updateTime: now)
            } else if try LibraryStore.meta(db, "db_update") == nil {
                try LibraryStatistics.refresh(db, updateTime: now)
            } else if changes.reread {
                // The counts cannot have moved; only the time does, as MPD's does.
                try LibraryStore.setMeta(db, "db_update", now)
            }
            // Any row written before the figures: what is derived from the songs (the tag
            // columns) stays valid across a rescan that found nothing new.
            if wroteRows { try LibraryStore.raiseGeneration(db) }
            return (changes.count > 0, changes.reread, changes.removedSongs)
        }
    }

    /// What an update changed: rows written, and the songs removed, which the queues drop.
    struct ChangeCounter {
        var count = 0
        var removedSongs: [String] = []
        /// Whether a song file was read, changed or not. MPD counts the database modified then,
        /// and so raises idle `database` and moves `db_update`, after every `rescan`.
        var reread = false
    }

    /// Logs a progress line when one is due: a clock read, called per folder and per batch.
    private func report(_ progress: inout ScanProgress) {
        if let line = progress.progressLine() { logger.notice("\(line)") }
    }

    /// A `WHERE` condition on `column` selecting `uri` and everything below it, or `nil` for
    /// the whole library.
    private func subtree(_ column: String, _ uri: String?) -> SQLFragment {
        guard let uri else { return .alwaysFalse }
        if uri.isEmpty { return .alwaysTrue }
        return SQLFragment("(\(column) = ? OR (\(column) >= ? AND \(column) < ?))", [uri, uri + "/", uri + "0"])
    }

    private func removeSubtree(
        _ uri: String, _ db: Database, _ changes: inout ChangeCounter, _ progress: inout ScanProgress
    ) throws {
        let condition = subtree("uri", uri)
        let removed = try String.fetchAll(
            db, sql: "DELETE FROM song WHERE \(condition.sql) RETURNING uri",
            arguments: StatementArguments(condition.arguments))
        changes.count += removed.count
        changes.removedSongs += removed
        progress.removed += removed.count
        try db.execute(
            sql: "DELETE FROM playlistFile WHERE \(condition.sql)", arguments: StatementArguments(condition.arguments))
        changes.count += db.changesCount
        if !uri.isEmpty {
            let directories = subtree("path", uri)
            try db.execute(
                sql: "DELETE FROM directory WHERE \(directories.sql)",
                arguments: StatementArguments(directories.arguments))
            changes.count += db.changesCount
        }
    }

    /// Creates the directories from the root down to the one holding `uri` (a directory's own
    /// URI included when it is one), with their times on disk.
    private func ensureDirectories(for uri: String, _ db: Database, _ changes: inout ChangeCounter) throws {
        var path = ""
        var parentID: Int64 = 1
        for component in uri.split(separator: "/").dropLast(isDirectory(uri) ? 0 : 1) {
            path = path.isEmpty ? String(component) : path + "/" + component
            if let id = try Int64.fetchOne(db, sql: "SELECT id FROM directory WHERE path = ?", arguments: [path]) {
                parentID = id
                continue
            }
            guard case .directory(let mtime) = walker.kind(of: path) else { return }
            try db.execute(
                sql: "INSERT INTO directory (path, parent, mtime) VALUES (?, ?, ?)", arguments: [path, parentID, mtime])
            parentID = db.lastInsertedRowID
            changes.count += 1
        }
    }

    private func isDirectory(_ uri: String) -> Bool {
        if case .directory = walker.kind(of: uri) { return true }
        return false
    }

    private func syncDirectories(
        under uri: String, disk: [String: Int64], _ db: Database, _ changes: inout ChangeCounter,
        _ progress: inout ScanProgress
    ) throws {
        let condition = subtree("path", uri)
        var known: [String: (id: Int64, mtime: Int64)] = [:]
        let rows = try Row.fetchCursor(
            db, sql: "SELECT id, path, mtime FROM directory WHERE \(condition.sql)",
            arguments: StatementArguments(condition.arguments))
        while let row = try rows.next() { known[row[1]] = (row[0], row[2]) }
        let vanished = known.filter { disk[$0.key] == nil && !$0.key.isEmpty }.map(\.value.id)
        // Their songs first and by name: deleting a directory row would take them along
        // (ON DELETE CASCADE) unseen by the counts, the update guard and the queues.
        for id in vanished {
            let removed = try String.fetchAll(
                db, sql: "DELETE FROM song WHERE directory = ? RETURNING uri", arguments: [id])
            changes.count += removed.count
            changes.removedSongs += removed
            progress.removed += removed.count
        }
        for id in vanished {
            try db.execute(sql: "DELETE FROM directory WHERE id = ?", arguments: [id])
            changes.count += 1
        }
        // Parents first, so each child finds its parent's id.
        for path in disk.keys.sorted(by: { $0.utf8.count < $1.utf8.count }) {
            let mtime = disk[path]!
            if let entry = known[path] {
                if entry.mtime != mtime {
                    try db.execute(sql: "UPDATE directory SET mtime = ? WHERE id = ?", arguments: [mtime, entry.id])
                    changes.count += 1
                }
                continue
            }
            let parentPath = path.split(separator: "/").dropLast().joined(separator: "/")
            let parentID =
                try Int64.fetchOne(db, sql: "SELECT id FROM directory WHERE path = ?", arguments: [parentPath]) ?? 1
            try db.execute(
                sql: "INSERT INTO directory (path, parent, mtime) VALUES (?, ?, ?)", arguments: [path, parentID, mtime])
            known[path] = (db.lastInsertedRowID, mtime)
            changes.count += 1
        }
    }

    private func directoryID(of uri: String, _ db: Database, cache: inout [String: Int64]) throws -> Int64? {
        // Walked URIs have no empty components, so the text before the last slash is the
        // parent; splitting and joining every URI took a tenth of a rescan.
        let parent = uri.lastIndex(of: "/").map { String(uri[..<$0]) } ?? ""
        if let id = cache[parent] { return id }
        let id = try Int64.fetchOne(db, sql: "SELECT id FROM directory WHERE path = ?", arguments: [parent])
        cache[parent] = id
        return id
    }

    private func syncSongs(
        under uri: String?,
        disk: [DiskTree.File],
        rescan: Bool,
        now: Int64,
        _ db: Database,
        _ changes: inout ChangeCounter,
        _ progress: inout ScanProgress
    ) throws {
        let condition = uri.map { subtree("uri", $0) } ?? SQLFragment("uri = ?", [disk.first?.uri ?? ""])
        var known: [String: (id: Int64, mtime: Int64, size: Int64)] = [:]
        let rows = try Row.fetchCursor(
            db, sql: "SELECT id, uri, mtime, size FROM song WHERE \(condition.sql)",
            arguments: StatementArguments(condition.arguments))
        while let row = try rows.next() { known[row[1]] = (row[0], row[2], row[3]) }

        var stale = Set(known.keys)
        var toRead: [DiskTree.File] = []
        for file in disk {
            if let entry = known[file.uri], !rescan, entry.mtime == file.mtime, entry.size == file.size {
                stale.remove(file.uri)
            } else {
                toRead.append(file)
            }
        }
        progress.checked += disk.count - toRead.count
        var directoryIDs: [String: Int64] = [:]
        var start = 0
        while start < toRead.count {
            let batch = Array(toRead[start..<min(start + batchSize, toRead.count)])
            start += batch.count
            for (file, outcome) in zip(batch, readMetadata(batch)) {
                let metadata: FileMetadata
                switch outcome {
                case .success(let read): metadata = read
                case .failure(let failure):
                    progress.fail(file.uri, reason: failure.reason)
                    continue
                }
                guard let directory = try directoryID(of: file.uri, db, cache: &directoryIDs) else { continue }
                stale.remove(file.uri)
                let existing = known[file.uri]?.id
                if try SongWriter.write(file, metadata, directory: directory, existing: existing, now: now, db) {
                    changes.count += 1
                }
                if existing == nil { progress.added += 1 } else { progress.updated += 1 }
                changes.reread = true
            }
            progress.checked += batch.count
            report(&progress)
        }
        for uri in stale {
            try db.execute(sql: "DELETE FROM song WHERE id = ?", arguments: [known[uri]!.id])
            changes.count += 1
        }
        changes.removedSongs += stale
        progress.removed += stale.count
    }

    /// Why a file could not be read, as the summary names it.
    struct ReadFailure: Error {
        /// FFmpeg's complaint.
        let reason: String
    }

    /// Reads the files' metadata on every core; a failure for a file FFmpeg cannot read (also
    /// logged at `info`, each one: the summary names only the first few). The caller counts
    /// the failures once the batch is back, so that counting takes no lock.
    private func readMetadata(_ files: [DiskTree.File]) -> [Result<FileMetadata, ReadFailure>] {
        let results = Mutex<[Result<FileMetadata, ReadFailure>]>(
            Array(repeating: .failure(ReadFailure(reason: "not read")), count: files.count))
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let path = walker.path(of: files[index].uri)
            do {
                let metadata = try MetadataReader.read(path: path, tags: tagMask)
                results.withLock { $0[index] = .success(metadata) }
            } catch {
                logger.info("skipping \(files[index].uri): \(error)")
                // The URI names the file already: its absolute path in front of the reason
                // would make the summary line twice as long.
                var reason = "\(error)"
                if reason.hasPrefix(path + ": ") { reason.removeFirst(path.count + 2) }
                results.withLock { $0[index] = .failure(ReadFailure(reason: reason)) }
            }
        }
        return results.withLock { $0 }
    }

    private func syncPlaylists(
        under uri: String?, disk: [DiskTree.File], _ db: Database, _ changes: inout ChangeCounter
    ) throws {
        let condition = uri.map { subtree("uri", $0) } ?? SQLFragment("uri = ?", [disk.first?.uri ?? ""])
        var known: [String: (id: Int64, mtime: Int64)] = [:]
        let rows = try Row.fetchCursor(
            db, sql: "SELECT id, uri, mtime FROM playlistFile WHERE \(condition.sql)",
            arguments: StatementArguments(condition.arguments))
        while let row = try rows.next() { known[row[1]] = (row[0], row[2]) }
        var directoryIDs: [String: Int64] = [:]
        for file in disk {
            if let entry = known.removeValue(forKey: file.uri) {
                if entry.mtime != file.mtime {
                    try db.execute(
                        sql: "UPDATE playlistFile SET mtime = ? WHERE id = ?", arguments: [file.mtime, entry.id])
                    changes.count += 1
                }
                continue
            }
            guard let directory = try directoryID(of: file.uri, db, cache: &directoryIDs) else { continue }
            try db.execute(
                sql: "INSERT INTO playlistFile (uri, directory, mtime) VALUES (?, ?, ?)",
                arguments: [file.uri, directory, file.mtime])
            changes.count += 1
        }
        for entry in known.values {
            try db.execute(sql: "DELETE FROM playlistFile WHERE id = ?", arguments: [entry.id])
            changes.count += 1
        }
    }

    /// Removes directories with nothing playable below them, as MPD's `PruneEmpty` does.
    private func pruneEmptyDirectories(_ db: Database, _ changes: inout ChangeCounter) throws {
        while true {
            try db.execute(
                sql: """
                    DELETE FROM directory WHERE id != 1
                    AND NOT EXISTS (SELECT 1 FROM song WHERE song.directory = directory.id)
                    AND NOT EXISTS (SELECT 1 FROM playlistFile p WHERE p.directory = directory.id)
                    AND NOT EXISTS (SELECT 1 FROM directory c WHERE c.parent = directory.id)
                    """)
            guard db.changesCount > 0 else { return }
            changes.count += db.changesCount
        }
    }
}
