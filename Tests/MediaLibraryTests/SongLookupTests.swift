import Foundation
import GRDB
import MusicModel
import Testing

@testable import MediaLibrary

@Suite struct SongLookupTests {
    @Test func findsASongByItsURIAndNothingElse() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let song = try #require(try library.store.songLookup.song(at: "5b.mp3"))
        let stored = try library.read { db in try LibraryStore.fetchSongs(db, where: SQLFragment("s.uri = '5b.mp3'")) }
        #expect([song] == stored)
        #expect(song.tags.contains(TagValue(.title, "five b")))
        #expect(try library.store.songLookup.song(at: "5B.mp3") == nil)
        #expect(try library.store.songLookup.song(at: "") == nil)
        #expect(try library.store.songLookup.song(at: "6.mp3")?.tags.contains(TagValue(.album, "Äl")) == true)
    }

    /// Each lookup reads the database as it is now, and leaves no snapshot open behind it: a
    /// checkpoint can then empty the WAL (an open read would keep it from passing).
    @Test func aLookupSeesLaterWritesAndHoldsNoSnapshot() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        #expect(try library.store.songLookup.song(at: "new.mp3") == nil)
        try library.store.pool.write { db in
            _ = try SongWriter.write(
                DiskTree.File(uri: "new.mp3", mtime: 1, size: 1),
                FileMetadata(tags: tags((.title, "New")), duration: 3),
                directory: 1, existing: nil, now: 1, db)
        }
        #expect(try library.store.songLookup.song(at: "new.mp3")?.tags == [TagValue(.title, "New")])
        let result = try library.store.pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        #expect(result.walFrameCount == 0)
        let wal = try FileManager.default.attributesOfItem(atPath: library.directory + "/db.sqlite-wal")
        #expect((wal[.size] as? Int) == 0)
    }

    @Test func aClosedLookupRefusesRatherThanReopen() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        #expect(try library.store.songLookup.song(at: "1.mp3") != nil)
        library.store.songLookup.releaseMemory()
        #expect(try library.store.songLookup.song(at: "1.mp3") != nil)
        library.store.songLookup.close()
        #expect(throws: DatabaseError.self) { try library.store.songLookup.song(at: "1.mp3") }
    }
}
