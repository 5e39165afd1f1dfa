import Foundation
import GRDB
import Testing

@testable import MediaLibrary

/// Closing the database at shutdown folds the WAL back into the file.
@Suite struct LibraryStoreCloseTests {
    @Test func closingLeavesNoWriteAheadLogAndTheSongsInTheFile() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        // A read opens a reader connection, as a client's query does.
        let count = try library.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM song") }
        #expect(count == mixedSongs.count)
        // So does a lookup of one song (`addid`), on a connection of its own.
        #expect(try library.store.songLookup.song(at: "1.mp3") != nil)
        #expect(FileManager.default.fileExists(atPath: library.directory + "/db.sqlite-wal"))
        try library.store.close()
        #expect(!FileManager.default.fileExists(atPath: library.directory + "/db.sqlite-wal"))
        let reopened = try LibraryStore(path: library.directory + "/db.sqlite")
        let again = try reopened.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM song") }
        #expect(again == mixedSongs.count)
    }
}
