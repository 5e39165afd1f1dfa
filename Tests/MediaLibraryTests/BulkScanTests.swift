import Foundation
import GRDB
import Logging
import MusicModel
import Testing

@testable import MediaLibrary

/// A first scan inserts its songs without the secondary indexes and the trigram triggers and
/// builds them afterwards (``Schema/dropForBulkInsert(_:)``): the database it leaves must be
/// the one a scan row by row leaves.
@Suite(.enabled(if: Fixtures.available, "needs the ffmpeg CLI"))
struct BulkScanTests {
    /// A music folder of FLAC files with distinct tags, some values shared, some non-ASCII.
    func makeFolder() throws -> String {
        let root = NSTemporaryDirectory() + "tonearm-bulk-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/A/B", withIntermediateDirectories: true)
        let source = Fixtures.shared!.path("plain.flac")
        for index in 0..<6 {
            let comments = [
                "TITLE=Night Song \(index) ☃", "ARTIST=Artist \(index % 2)", "ALBUM=Ålbum \(index / 3)",
                "GENRE=Rock", "TRACKNUMBER=\(index + 1)", "DATE=200\(index)",
            ]
            let folder = index < 3 ? "/A" : "/A/B"
            try Fixtures.flac(fromPath: source, comments: comments, toPath: root + folder + "/\(index).flac")
        }
        return root
    }

    /// Scans `root` into a new database beside it (`root` + `-name.sqlite`), in bulk or row by
    /// row. Not inside it: a database made there would change the folder's time between the
    /// two scans, which each record.
    func scan(_ root: String, bulk: Bool, name: String) throws -> Library {
        let settings = Library.Settings(
            musicDirectory: root, databasePath: root + "-\(name).sqlite", songSuffixes: ["flac"], tagMask: .all)
        let library = try Library(settings: settings, logger: Logger(label: "test"), onEvent: { _ in })
        var scanner = MusicFolderScanner(
            store: library.store, walker: library.walker, tagMask: .all, logger: Logger(label: "test"))
        scanner.firstScanInBulk = bulk
        var progress = ScanProgress(job: 1, uri: "", interval: .seconds(60))
        _ = try scanner.update("", rescan: false, now: 1, progress: &progress)
        #expect(progress.added == 6)
        return library
    }

    /// Every row of the tables a scan writes, and the schema, as text.
    func contents(_ library: Library) throws -> [String] {
        try library.store.pool.read { db in
            var lines = try String.fetchAll(
                db, sql: "SELECT type || ' ' || name || ' ' || ifnull(sql, '') FROM sqlite_master ORDER BY type, name")
            for table in ["directory", "song", "songTag", "songTagList", "playlistFile", "meta"] {
                let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1")
                lines += rows.map { "\(table) \($0)" }
            }
            for word in ["night", "lbum", "rtist 1", "☃", "rock"] {
                let hits = try Int64.fetchAll(
                    db, sql: "SELECT rowid FROM songTagText WHERE folded MATCH ? ORDER BY rowid",
                    arguments: ["\"" + TextFolding.fold(word) + "\""])
                lines.append("match \(word): \(hits)")
            }
            return lines
        }
    }

    @Test func aBulkFirstScanLeavesTheDatabaseARowByRowScanLeaves() throws {
        let root = try makeFolder()
        defer {
            try? FileManager.default.removeItem(atPath: root)
            for name in ["bulk", "rows"] {
                for suffix in ["", "-wal", "-shm"] {
                    try? FileManager.default.removeItem(atPath: root + "-\(name).sqlite\(suffix)")
                }
            }
        }
        let bulk = try scan(root, bulk: true, name: "bulk")
        let rows = try scan(root, bulk: false, name: "rows")
        let (bulkContents, rowContents) = (try contents(bulk), try contents(rows))
        #expect(bulkContents == rowContents)
        #expect(bulkContents.contains { $0.hasPrefix("match night: [") && $0 != "match night: []" })
        // The trigram index agrees with its content table, and a later change still reaches it
        // through the triggers made again.
        try bulk.store.pool.write { db in
            try db.execute(sql: "INSERT INTO songTagText(songTagText) VALUES ('integrity-check')")
            try db.execute(sql: "DELETE FROM song WHERE uri = 'A/0.flac'")
            try db.execute(sql: "INSERT INTO songTagText(songTagText) VALUES ('integrity-check')")
        }
    }
}
