import Foundation
import GRDB
import MusicModel
import Testing

@testable import MediaLibrary

@Suite("SongWriter: a song read again")
struct SongWriterTests {
    private let file = DiskTree.File(uri: "a.flac", mtime: 1, size: 1)
    private let metadata = FileMetadata(
        tags: tags((.artist, "A"), (.title, "Night Train"), (.genre, "Rock"), (.genre, "Jazz")), duration: 10)

    /// Writes `file` again over its row: whether the writer says it wrote, and SQLite's count
    /// of the rows it did write.
    private func rewrite(
        _ library: TestLibrary, _ file: DiskTree.File, _ metadata: FileMetadata
    ) throws -> (wrote: Bool, written: Int) {
        try library.store.pool.write { db in
            let before = db.totalChangesCount
            let id = try #require(
                try Int64.fetchOne(db, sql: "SELECT id FROM song WHERE uri = ?", arguments: [file.uri]))
            let wrote = try SongWriter.write(file, metadata, directory: 1, existing: id, now: 2, db)
            return (wrote, db.totalChangesCount - before)
        }
    }

    /// Every row the writer keeps, as text, with the trigram index's hits for "ight".
    private func rows(_ library: TestLibrary) throws -> [String] {
        try library.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT 'song ' || mtime || ' ' || size || ' ' || duration || ' ' || added FROM song
                    UNION ALL SELECT 'tag ' || id || ' ' || tag || ' ' || value || ' ' || folded FROM songTag
                    UNION ALL SELECT 'list ' || duration || ' ' || hex(tags) FROM songTagList
                    UNION ALL SELECT 'text ' || rowid FROM songTagText WHERE songTagText MATCH '"ight"'
                    """)
        }
    }

    @Test("the same tags, time and size: nothing is written")
    func unchanged() throws {
        let library = try TestLibrary([("a.flac", metadata.tags, 10)])
        defer { library.remove() }
        let before = try rows(library)
        let outcome = try rewrite(library, file, metadata)
        #expect(!outcome.wrote)
        #expect(outcome.written == 0)
        #expect(try rows(library) == before)
    }

    @Test("a new time alone rewrites the song's row, not its tags")
    func newTime() throws {
        let library = try TestLibrary([("a.flac", metadata.tags, 10)])
        defer { library.remove() }
        let outcome = try rewrite(library, DiskTree.File(uri: "a.flac", mtime: 5, size: 1), metadata)
        #expect(outcome.wrote)
        #expect(outcome.written == 1)
        #expect(try library.read { try Int64.fetchOne($0, sql: "SELECT mtime FROM song") } == 5)
    }

    @Test("changed tags replace every row of them, the trigram index's included")
    func changedTags() throws {
        let library = try TestLibrary([("a.flac", metadata.tags, 10)])
        defer { library.remove() }
        var retagged = metadata
        retagged.tags = tags((.artist, "A"), (.title, "Day Train"), (.genre, "Funk"))
        #expect(try rewrite(library, file, retagged).wrote)
        let expected = try TestLibrary([("a.flac", retagged.tags, 10)])
        defer { expected.remove() }
        // Rewritten or written afresh, the rows are the same (the `added` time is kept).
        #expect(try rows(library) == rows(expected))
        #expect(
            try library.read {
                try Int.fetchOne($0, sql: "SELECT count(*) FROM songTagText WHERE songTagText MATCH '\"ight\"'")
            } == 0)
    }

    @Test("a new duration alone rewrites the song and its packed row")
    func newDuration() throws {
        let library = try TestLibrary([("a.flac", metadata.tags, 10)])
        defer { library.remove() }
        var longer = metadata
        longer.duration = 11
        let outcome = try rewrite(library, file, longer)
        #expect(outcome.written == 2)
        #expect(try library.read { try Double.fetchOne($0, sql: "SELECT duration FROM songTagList") } == 11)
        #expect(try library.read { try Double.fetchOne($0, sql: "SELECT duration FROM song") } == 11)
    }
}
