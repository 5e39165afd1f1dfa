import Foundation
import GRDB
import MusicModel
import Synchronization
import Testing

@testable import MediaLibrary

/// ``LibraryStore/read(_:)`` on the store's own connections (``LibraryReaders``): the same
/// snapshot per read as the pool's, and the same view of what the writer did meanwhile.
@Suite struct LibraryReadersTests {
    private static let countSQL = "SELECT count(*) FROM song"

    private func songCount(_ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: Self.countSQL)) ?? -1
    }

    private func write(_ store: LibraryStore, _ name: String, _ db: Database) throws {
        _ = try SongWriter.write(
            DiskTree.File(uri: name, mtime: 1, size: 1), FileMetadata(tags: tags((.title, name)), duration: 3),
            directory: 1, existing: nil, now: 1, db)
    }

    /// All the statements of one read see one state of the database, even when the writer
    /// commits between them.
    @Test func oneReadIsOneSnapshot() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let (before, after) = try library.store.read { db in
            let before = try songCount(db)
            try library.store.pool.write { db in try write(library.store, "new.mp3", db) }
            return (before, try songCount(db))
        }
        #expect(before == mixedSongs.count)
        #expect(after == before)
        #expect(try library.store.read { db in try songCount(db) } == before + 1)
    }

    /// A bulk insert drops and makes again the indexes (a schema change): statements the
    /// readers compiled before still run, and see the new rows.
    @Test func aReadAfterABulkInsertSeesItsRows() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let query = "SELECT s.uri FROM song s JOIN songTag t ON t.song = s.id WHERE t.folded = 'bulk'"
        #expect(try library.store.read { db in try String.fetchAll(db.cachedStatement(sql: query)) } == [])
        try library.store.pool.write { db in
            let dropped = try Schema.dropForBulkInsert(db)
            _ = try SongWriter.write(
                DiskTree.File(uri: "bulk.mp3", mtime: 1, size: 1),
                FileMetadata(tags: tags((.title, "Bulk")), duration: 3), directory: 1, existing: nil, now: 1, db)
            try Schema.restoreAfterBulkInsert(db, dropped)
        }
        #expect(try library.store.read { db in try String.fetchAll(db.cachedStatement(sql: query)) } == ["bulk.mp3"])
    }

    /// The damaged-database reset replaces every page through the backup API: a reader
    /// connection that read before sees the empty library after.
    @Test func aReadAfterAResetSeesTheEmptyLibrary() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        #expect(try library.store.read { db in try songCount(db) } == mixedSongs.count)
        let path = library.directory + "/db.sqlite"
        try library.store.reset(keepingCopyAt: path + ".damaged", of: path)
        #expect(try library.store.read { db in try songCount(db) } == 0)
    }

    /// The readers close before the pool's writer, which then folds the WAL back into the
    /// database file and deletes it; a read afterwards fails rather than opening again.
    @Test func closingLeavesNoWALAndRefusesReads() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        #expect(try library.store.read { db in try songCount(db) } == mixedSongs.count)
        library.store.releaseMemory()
        #expect(try library.store.read { db in try songCount(db) } == mixedSongs.count)
        try library.store.close()
        #expect(!FileManager.default.fileExists(atPath: library.directory + "/db.sqlite-wal"))
        #expect(throws: DatabaseError.self) { try library.store.read { db in try songCount(db) } }
    }

    /// A read that fails ends its transaction: the connection serves the next read, which sees
    /// what was written since.
    @Test func aFailedReadLeavesNoTransactionBehind() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        #expect(throws: DatabaseError.self) {
            try library.store.read { db in
                _ = try songCount(db)
                try db.execute(sql: "SELECT * FROM noSuchTable")
            }
        }
        try library.store.pool.write { db in try write(library.store, "new.mp3", db) }
        #expect(try library.store.read { db in try songCount(db) } == mixedSongs.count + 1)
    }

    /// Reads on more threads at once than the readers kept: those beyond go to the pool's
    /// readers, and every read answers.
    @Test func concurrentReadsAllAnswer() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let store = library.store
        let threads = LibraryReaders.maximumCount * 3
        let counts = Mutex<[Int]>([])
        let group = DispatchGroup()
        for _ in 0..<threads {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                let count = try? store.read { db in
                    // Held a while, so that the reads overlap.
                    Thread.sleep(forTimeInterval: 0.05)
                    return try Int.fetchOne(db, sql: Self.countSQL) ?? -1
                }
                counts.withLock { $0.append(count ?? -1) }
            }
        }
        group.wait()
        #expect(counts.withLock { $0 } == Array(repeating: mixedSongs.count, count: threads))
    }
}
