import GRDB
import MusicModel

/// Writes one scanned song and its tags.
///
/// This is the only writer of `songTag` and `songTagList`: a song's rows in both must always
/// agree (filters read the one, printing and grouping the other), so any other path that
/// changes a song's tags must write both as this does.
enum SongWriter {
    /// Inserts the song, or replaces the row `existing` keeping its `added` time.
    static func write(
        _ file: DiskTree.File,
        _ metadata: FileMetadata,
        directory: Int64,
        existing: Int64?,
        now: Int64,
        _ db: Database
    ) throws {
        let songID: Int64
        if let existing {
            try db.execute(
                sql: """
                    UPDATE song SET mtime = ?, size = ?, duration = ?, format = ?, hasPicture = ?, directory = ?
                    WHERE id = ?
                    """,
                arguments: [
                    file.mtime, file.size, metadata.duration, metadata.audioFormat,
                    metadata.hasEmbeddedPicture, directory, existing,
                ]
            )
            try db.execute(sql: "DELETE FROM songTag WHERE song = ?", arguments: [existing])
            songID = existing
        } else {
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO song (uri, directory, mtime, size, added, duration, format, hasPicture)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            try insert.execute(arguments: [
                file.uri, directory, file.mtime, file.size, now, metadata.duration,
                metadata.audioFormat, metadata.hasEmbeddedPicture,
            ])
            songID = db.lastInsertedRowID
        }
        let insertTag = try db.cachedStatement(
            sql: "INSERT INTO songTag (id, song, tag, value, folded) VALUES (?, ?, ?, ?, ?)")
        var valuesOfType = [Int](repeating: 0, count: TagType.allCases.count)
        for tag in metadata.tags {
            let index = valuesOfType[tag.type.rawValue]
            valuesOfType[tag.type.rawValue] += 1
            guard index < TagRowID.maximumValues else { continue }
            let id = TagRowID.make(song: songID, tag: tag.type.rawValue, index: index)
            try insertTag.execute(arguments: [id, songID, tag.type.rawValue, tag.value, TextFolding.fold(tag.value)])
        }
        let insertList = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO songTagList (song, duration, tags) VALUES (?, ?, ?)")
        try insertList.execute(arguments: [songID, metadata.duration, PackedTags.encode(metadata.tags)])
    }
}
