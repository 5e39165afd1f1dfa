import Foundation
import GRDB
import MusicModel
import Testing

@testable import MediaLibrary

@Suite("Packed tags")
struct PackedTagsTests {
    @Test func roundTripsValuesOfEveryLength() {
        let long = String(repeating: "é", count: 100)  // 200 bytes: a two-byte length
        let huge = String(repeating: "x", count: 20_000)  // a three-byte length
        let values = tags(
            (.title, "T"), (.artist, ""), (.comment, long), (.comment, huge), (.musicBrainzReleaseGroupID, "坂本"))
        let blob = PackedTags.encode(values)
        #expect(blob.withUnsafeBytes(decode) == values)
    }

    /// A song's tags decoded for a caller that keeps them: room for 16 values where 9 are
    /// would be 168 bytes for nothing.
    @Test func decodingSizesTheArrayToItsValues() {
        let values = tags(
            (.artist, "A"), (.albumArtist, "B"), (.album, "C"), (.title, "D"), (.track, "1"), (.disc, "1"),
            (.genre, "Rock"), (.date, "1999"), (.composer, "E"))
        let decoded = PackedTags.encode(values).withUnsafeBytes(decode)
        #expect(decoded == values && decoded.capacity < 16)
    }

    @Test func aTruncatedBlobEndsAtTheDamagedValue() {
        let blob = PackedTags.encode(tags((.title, "complete"), (.artist, "cut short")))
        let decoded = blob.dropLast(3).withUnsafeBytes(decode)
        #expect(decoded == tags((.title, "complete")))
    }

    @Test func unknownTagNumbersAreSkipped() {
        var blob = Data([200, 1, UInt8(ascii: "?")])
        blob.append(PackedTags.encode(tags((.genre, "Jazz"))))
        #expect(blob.withUnsafeBytes(decode) == tags((.genre, "Jazz")))
    }
}

@Suite("A song's packed tags")
struct PackedTagListTests {
    @Test func aSongReadsBackItsTagsAndTheFirstOfAType() {
        let values = tags((.artist, "A"), (.title, "T"), (.artist, "B"), (.comment, String(repeating: "c", count: 300)))
        var song = Song(uri: "a.flac", lastModified: 1, added: 2, audioFormat: nil, duration: nil, tags: values)
        #expect(song.tags == values)
        #expect(song.packedTags.first(.artist) == "A" && song.packedTags.first(.album) == nil)
        song.tags.append(TagValue(.album, "L"))
        #expect(song.tags == values + tags((.album, "L")))
        #expect(
            song == Song(uri: "a.flac", lastModified: 1, added: 2, audioFormat: nil, duration: nil, tags: song.tags))
    }

    @Test func aCopiedBlobLeavesOutUnknownNumbersAndADamagedEnd() {
        var blob = Data([200, 1, UInt8(ascii: "?")])
        blob.append(PackedTags.encode(tags((.genre, "Jazz"), (.title, "cut short"))))
        let copied = blob.dropLast(3).withUnsafeBytes { PackedTagList(copying: $0) }
        #expect(copied == PackedTagList(tags((.genre, "Jazz"))))
        let whole = PackedTags.encode(tags((.genre, "Jazz"))).withUnsafeBytes { PackedTagList(copying: $0) }
        #expect(whole == PackedTagList(tags((.genre, "Jazz"))))
    }
}

@Suite("Packed tags in the database")
struct SongTagListTests {
    @Test func songsKeepTheirTagsInStoredOrder() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let fetched = try library.read { db in
            try LibraryStore.fetchSongs(
                db, where: SQLFragment("s.uri IN ('3.mp3', '4.mp3', '6.mp3')"), orderBy: "s.uri")
        }
        #expect(fetched.map(\.tags) == [mixedSongs[2].tags, [], mixedSongs[6].tags])
        #expect(fetched.map(\.duration) == [30, nil, 60])
    }

    @Test func songRecordsComeInTheOrderAskedAndAgreeWithSongs() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        let songs = try library.read { try LibraryStore.fetchSongs($0, where: .alwaysTrue, orderBy: "s.id") }
        let ids: [Int64] = [6, 999, 1, 4, 3]  // 999 names no song and is skipped
        var seen: [Song] = []
        try library.read { db in
            try LibraryStore.forEachSong(db, ids: ids) { row in
                let record = LibraryStore.record(row)
                var tags: [TagValue] = []
                record.forEachTag { type, value in tags.append(TagValue(type, String(decoding: value, as: UTF8.self))) }
                seen.append(
                    Song(
                        uri: String(decoding: record.uri, as: UTF8.self), lastModified: record.lastModified,
                        added: record.added,
                        audioFormat: record.audioFormat.map { String(decoding: $0, as: UTF8.self) },
                        duration: record.duration, tags: tags
                    ))
            }
        }
        #expect(seen == [songs[5], songs[0], songs[3], songs[2]])
    }

    @Test func migrationPacksTheTagsOfAnExistingDatabase() throws {
        let directory = NSTemporaryDirectory() + "tonearm-v1-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // A database as version 1 wrote it: one songTag row per value, ids in stored order.
        let old = try DatabaseQueue(path: directory + "/db.sqlite")
        try Schema.migrator.migrate(old, upTo: "v1")
        try old.write { db in
            for (number, song) in mixedSongs.enumerated() {
                try db.execute(
                    sql:
                        "INSERT INTO song (id, uri, directory, mtime, size, added, duration) VALUES (?, ?, 1, 1, 1, 1, ?)",
                    arguments: [number + 1, song.name, song.duration])
                for tag in song.tags {
                    try db.execute(
                        sql: "INSERT INTO songTag (song, tag, value, folded) VALUES (?, ?, ?, ?)",
                        arguments: [number + 1, tag.type.rawValue, tag.value, TextFolding.fold(tag.value)])
                }
            }
        }
        try old.close()
        let store = try LibraryStore(path: directory + "/db.sqlite")
        let fetched = try store.pool.read { try LibraryStore.fetchSongs($0, where: .alwaysTrue, orderBy: "s.id") }
        #expect(fetched.map(\.tags) == mixedSongs.map(\.tags))
        #expect(fetched.map(\.duration) == mixedSongs.map(\.duration))
    }
}

@Suite("Row visitor")
struct RowVisitorTests {
    private struct Collected {
        var rows: [([TagValue], Double)] = []
    }

    @Test func visitsEveryRowInsideTheStatementAndCanRunAgain() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        try library.read { db in
            for _ in 0..<2 {
                var collected = Collected()
                try withUnsafeMutablePointer(to: &collected) { pointer in
                    let visitor = RowVisitor(
                        function: { context, blob, count, duration in
                            let tags = decode(UnsafeRawBufferPointer(start: blob, count: count))
                            context.assumingMemoryBound(to: Collected.self).pointee.rows.append((tags, duration))
                        }, context: UnsafeMutableRawPointer(pointer))
                    try RowVisitor.run(
                        db, "SELECT count(mpd_visit(?, tags, duration)) FROM songTagList",
                        arguments: [], cached: true, visitor: visitor)
                }
                #expect(collected.rows.map(\.0) == mixedSongs.map(\.tags))
                #expect(collected.rows.map(\.1) == mixedSongs.map { $0.duration ?? 0 })
            }
        }
    }

    @Test func withoutAVisitorTheFunctionFails() throws {
        let library = try TestLibrary(mixedSongs)
        defer { library.remove() }
        #expect(throws: DatabaseError.self) {
            try library.read { db in
                try Int.fetchOne(db, sql: "SELECT count(mpd_visit(NULL, tags, duration)) FROM songTagList")
            }
        }
    }
}

/// The tags of a blob, as a song read from the library holds them.
private func decode(_ blob: UnsafeRawBufferPointer) -> [TagValue] {
    PackedTagList(copying: blob).values
}
