import Foundation
import GRDB
import MusicModel

/// Writes one scanned song and its tags.
///
/// This is the only writer of `songTag` and `songTagList`: a song's rows in both must always
/// agree (filters read the one, printing and grouping the other), so any other path that
/// changes a song's tags must write both as this does.
enum SongWriter {
    /// Inserts the song, or brings the row `existing` in line with the file, keeping its
    /// `added` time.
    ///
    /// A file read again is compared with its rows first and only what differs is written:
    /// `rescan` reads every file, and almost all of them are as they were. Rewriting each
    /// song's tag rows put every value through four indexes and the trigram index twice, a
    /// delete and an insert (100,000 unchanged songs: 50 s, against MPD's 7 s).
    /// - Returns: whether any row was written.
    @discardableResult
    static func write(
        _ file: DiskTree.File,
        _ metadata: FileMetadata,
        directory: Int64,
        existing: Int64?,
        now: Int64,
        _ db: Database
    ) throws -> Bool {
        let packed = PackedTags.encode(metadata.tags)
        guard let existing else {
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO song (uri, directory, mtime, size, added, duration, format, hasPicture)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            try insert.execute(arguments: [
                file.uri, directory, file.mtime, file.size, now, metadata.duration,
                metadata.audioFormat, metadata.hasEmbeddedPicture,
            ])
            let songID = db.lastInsertedRowID
            try insertTags(metadata.tags, song: songID, db)
            try writeTagList(song: songID, duration: metadata.duration, packed: packed, db)
            return true
        }
        let stored = try StoredSong.fetch(existing, db)
        let song = StoredSong.Row(
            mtime: file.mtime, size: file.size, duration: metadata.duration, format: metadata.audioFormat,
            hasPicture: metadata.hasEmbeddedPicture, directory: directory)
        var wrote = false
        if stored?.row != song {
            let update = try db.cachedStatement(
                sql: """
                    UPDATE song SET mtime = ?, size = ?, duration = ?, format = ?, hasPicture = ?, directory = ?
                    WHERE id = ?
                    """)
            try update.execute(arguments: [
                file.mtime, file.size, metadata.duration, metadata.audioFormat,
                metadata.hasEmbeddedPicture, directory, existing,
            ])
            wrote = true
        }
        if stored?.tags != packed {
            try db.execute(sql: "DELETE FROM songTag WHERE song = ?", arguments: [existing])
            try insertTags(metadata.tags, song: existing, db)
            wrote = true
        }
        if stored?.tags != packed || stored?.listDuration != metadata.duration {
            try writeTagList(song: existing, duration: metadata.duration, packed: packed, db)
            wrote = true
        }
        return wrote
    }

    /// One `songTag` row per value, each under its ``TagRowID``.
    private static func insertTags(_ tags: [TagValue], song: Int64, _ db: Database) throws {
        let insertTag = try db.cachedStatement(
            sql: "INSERT INTO songTag (id, song, tag, value, folded) VALUES (?, ?, ?, ?, ?)")
        var valuesOfType = [Int](repeating: 0, count: TagType.allCases.count)
        for tag in tags {
            let index = valuesOfType[tag.type.rawValue]
            valuesOfType[tag.type.rawValue] += 1
            guard index < TagRowID.maximumValues else { continue }
            let id = TagRowID.make(song: song, tag: tag.type.rawValue, index: index)
            try insertTag.execute(arguments: [id, song, tag.type.rawValue, tag.value, TextFolding.fold(tag.value)])
        }
    }

    private static func writeTagList(song: Int64, duration: Double?, packed: Data, _ db: Database) throws {
        let insertList = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO songTagList (song, duration, tags) VALUES (?, ?, ?)")
        try insertList.execute(arguments: [song, duration, packed])
    }

    /// What the database holds for a song, in the terms a read of its file gives.
    private struct StoredSong {
        /// The `song` row's columns that come from the file and its place.
        struct Row: Equatable {
            var mtime: Int64
            var size: Int64
            var duration: Double?
            var format: String?
            var hasPicture: Bool
            var directory: Int64
        }

        var row: Row
        /// `songTagList`'s duration; `nil` also when the song has no such row.
        var listDuration: Double?
        /// `songTagList`'s packed tags, `nil` when the song has no such row.
        var tags: Data?

        static func fetch(_ id: Int64, _ db: Database) throws -> StoredSong? {
            let select = try db.cachedStatement(
                sql: """
                    SELECT s.mtime, s.size, s.duration, s.format, s.hasPicture, s.directory, l.duration, l.tags
                    FROM song s LEFT JOIN songTagList l ON l.song = s.id WHERE s.id = ?
                    """)
            guard let row = try GRDB.Row.fetchOne(select, arguments: [id]) else { return nil }
            return StoredSong(
                row: Row(
                    mtime: row[0], size: row[1], duration: row[2], format: row[3], hasPicture: row[4],
                    directory: row[5]),
                listDuration: row[6], tags: row[7])
        }
    }
}
