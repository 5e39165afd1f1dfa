import GRDB
import MusicModel

/// The library database's schema, as GRDB migrations: each released schema change is a new
/// migration, never an edit of an old one, so an existing database upgrades in place.
enum Schema {
    /// The tags whose values go into the trigram index. Numbers, dates and identifiers are
    /// left out: a substring search over them is rare and scans few rows of one tag anyway,
    /// while their trigrams would make the index (and every scan) much larger.
    static let fullTextTags: [TagType] = TagType.allCases.filter {
        switch $0 {
        case .track, .disc, .date, .originalDate, .movementNumber, .showMovement,
            .musicBrainzArtistID, .musicBrainzAlbumID, .musicBrainzAlbumArtistID, .musicBrainzTrackID,
            .musicBrainzReleaseTrackID, .musicBrainzWorkID, .musicBrainzReleaseGroupID:
            false
        default:
            true
        }
    }

    /// The migrations, in order.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // `ord` is the position in MPD's database walk (songs, then playlists, then each
            // child directory followed by its contents): the order of listallinfo and of an
            // unsorted find. A directory's subtree is the range (ord, ordEnd].
            try db.execute(
                sql: """
                    CREATE TABLE directory (
                        id INTEGER PRIMARY KEY,
                        path TEXT NOT NULL UNIQUE,
                        parent INTEGER REFERENCES directory(id) ON DELETE CASCADE,
                        mtime INTEGER NOT NULL,
                        ord INTEGER NOT NULL DEFAULT 0,
                        ordEnd INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX directory_parent ON directory(parent);
                    CREATE TABLE song (
                        id INTEGER PRIMARY KEY,
                        uri TEXT NOT NULL UNIQUE,
                        directory INTEGER NOT NULL REFERENCES directory(id) ON DELETE CASCADE,
                        mtime INTEGER NOT NULL,
                        size INTEGER NOT NULL,
                        added INTEGER NOT NULL,
                        duration REAL,
                        format TEXT,
                        hasPicture INTEGER NOT NULL DEFAULT 0,
                        ord INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE INDEX song_directory ON song(directory);
                    CREATE INDEX song_ord ON song(ord);
                    CREATE TABLE songTag (
                        id INTEGER PRIMARY KEY,
                        song INTEGER NOT NULL REFERENCES song(id) ON DELETE CASCADE,
                        tag INTEGER NOT NULL,
                        value TEXT NOT NULL,
                        folded TEXT NOT NULL
                    );
                    CREATE INDEX songTag_song ON songTag(song, tag);
                    CREATE INDEX songTag_value ON songTag(tag, value);
                    CREATE INDEX songTag_folded ON songTag(tag, folded);
                    CREATE TABLE playlistFile (
                        id INTEGER PRIMARY KEY,
                        uri TEXT NOT NULL UNIQUE,
                        directory INTEGER NOT NULL REFERENCES directory(id) ON DELETE CASCADE,
                        mtime INTEGER NOT NULL,
                        ord INTEGER NOT NULL DEFAULT 0
                    );
                    CREATE TABLE meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
                    CREATE VIRTUAL TABLE songTagText USING fts5(
                        folded, content='songTag', content_rowid='id', tokenize='trigram'
                    );
                    """)
            try createTrigramTriggers(db)
            try db.execute(sql: "INSERT INTO directory (id, path, parent, mtime) VALUES (1, '', NULL, 0)")
        }
        migrator.registerMigration("v2") { db in
            // Each song's tags packed in one row (PackedTags), with its duration: a song block
            // is one seek, and grouping the library one scan of this narrow table. Every song
            // has a row; SongWriter writes it with the song's songTag rows.
            try db.execute(
                sql: """
                    CREATE TABLE songTagList (
                        song INTEGER PRIMARY KEY REFERENCES song(id) ON DELETE CASCADE,
                        duration REAL,
                        tags BLOB NOT NULL
                    );
                    """)
            try fillSongTagList(db)
        }
        migrator.registerMigration("v3") { db in
            // `songTag` ids become TagRowIDs, so a trigram hit names its song and tag type
            // without a seek into `songTag`. The trigram index is rebuilt on them, and made
            // case-sensitive: its text is folded already, so its matches are exactly `instr`'s
            // on the folded value and need no second check.
            try db.execute(
                sql: """
                    DROP TRIGGER songTag_ai;
                    DROP TRIGGER songTag_ad;
                    DROP TABLE songTagText;
                    CREATE TABLE songTagNumbered (
                        id INTEGER PRIMARY KEY,
                        song INTEGER NOT NULL REFERENCES song(id) ON DELETE CASCADE,
                        tag INTEGER NOT NULL,
                        value TEXT NOT NULL,
                        folded TEXT NOT NULL
                    );
                    INSERT INTO songTagNumbered (id, song, tag, value, folded)
                        SELECT (song << \(TagRowID.tagBits + TagRowID.valueBits)) | (tag << \(TagRowID.valueBits)) | n,
                               song, tag, value, folded
                        FROM (SELECT song, tag, value, folded,
                                     ROW_NUMBER() OVER (PARTITION BY song, tag ORDER BY id) - 1 AS n
                              FROM songTag)
                        WHERE n < \(TagRowID.maximumValues);
                    DROP TABLE songTag;
                    ALTER TABLE songTagNumbered RENAME TO songTag;
                    CREATE INDEX songTag_song ON songTag(song, tag);
                    CREATE INDEX songTag_value ON songTag(tag, value);
                    CREATE INDEX songTag_folded ON songTag(tag, folded);
                    CREATE VIRTUAL TABLE songTagText USING fts5(
                        folded, content='songTag', content_rowid='id', tokenize='trigram case_sensitive 1'
                    );
                    INSERT INTO songTagText(rowid, folded)
                        SELECT id, folded FROM songTag WHERE tag IN (\(indexedTagList));
                    """)
            try createTrigramTriggers(db)
        }
        migrator.registerMigration("v4") { db in
            // Every kind of entry by walk order, and by directory and walk order: a walk pages
            // with `ord > ?`. Before, `lsinfo` sorted all of a directory's entries again for
            // each page (the root of 1,000 artist folders: 2.4 ms, MPD 0.3 ms), and each page
            // of `listallinfo` read and sorted every directory. The foreign keys' cascades
            // still find their rows by the first column.
            try db.execute(
                sql: """
                    DROP INDEX directory_parent;
                    CREATE INDEX directory_parent ON directory(parent, ord);
                    CREATE INDEX directory_ord ON directory(ord);
                    DROP INDEX song_directory;
                    CREATE INDEX song_directory ON song(directory, ord);
                    CREATE INDEX playlistFile_directory ON playlistFile(directory, ord);
                    CREATE INDEX playlistFile_ord ON playlistFile(ord);
                    """)
        }
        migrator.registerMigration("v5") { db in
            // "Recently added" views ask for `added-since` (or `modified-since`) a recent
            // time: a handful of songs, which without these indexes took a test of every song.
            try db.execute(
                sql: """
                    CREATE INDEX song_added ON song(added);
                    CREATE INDEX song_mtime ON song(mtime);
                    """)
        }
        return migrator
    }

    /// The raw values of ``fullTextTags``, for SQL's `IN (…)`.
    static var indexedTagList: String { fullTextTags.map { String($0.rawValue) }.joined(separator: ",") }

    /// The tags left out of the trigram index.
    static let unindexedTags: [TagType] = TagType.allCases.filter { !fullTextTags.contains($0) }

    /// Keeps the trigram index in step with `songTag`, for the tags of ``fullTextTags``.
    private static func createTrigramTriggers(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TRIGGER songTag_ai AFTER INSERT ON songTag WHEN new.tag IN (\(indexedTagList)) BEGIN
                    INSERT INTO songTagText(rowid, folded) VALUES (new.id, new.folded);
                END;
                CREATE TRIGGER songTag_ad AFTER DELETE ON songTag WHEN old.tag IN (\(indexedTagList)) BEGIN
                    INSERT INTO songTagText(songTagText, rowid, folded) VALUES ('delete', old.id, old.folded);
                END;
                """)
    }

    /// Packs the `songTag` rows of every song into `songTagList`, for a database made before it.
    static func fillSongTagList(_ db: Database) throws {
        let insert = try db.makeStatement(sql: "INSERT INTO songTagList (song, duration, tags) VALUES (?, ?, ?)")
        let cursor = try Row.fetchCursor(
            db,
            sql: """
                SELECT s.id, s.duration, t.tag, t.value FROM song s LEFT JOIN songTag t ON t.song = s.id
                ORDER BY s.id, t.id
                """)
        var song: (id: Int64, duration: Double?)?
        var tags: [TagValue] = []
        func flush() throws {
            guard let song else { return }
            try insert.execute(arguments: [song.id, song.duration, PackedTags.encode(tags)])
        }
        while let row = try cursor.next() {
            let id: Int64 = row[0]
            if id != song?.id {
                try flush()
                song = (id, row[1])
                tags = []
            }
            if let number: Int = row[2], let type = TagType(rawValue: number) {
                tags.append(TagValue(type, row[3]))
            }
        }
        try flush()
    }
}

extension Schema {
    /// The secondary indexes of `song` and `songTag` and the trigram index's triggers, as
    /// SQLite stores their definitions, dropped for a first scan (``dropForBulkInsert(_:)``).
    struct BulkInsert {
        fileprivate let indexes: [String]
        fileprivate let triggers: [String]
    }

    /// Drops what every inserted song would otherwise update one row at a time: the secondary
    /// indexes of `song` and `songTag` and the triggers that feed the trigram index. Their
    /// definitions are read back from `sqlite_master`, so that ``restoreAfterBulkInsert(_:_:)``
    /// makes them exactly as the migrations left them. Only for a library without songs, in
    /// the transaction that fills it: readers see the old schema until it commits.
    static func dropForBulkInsert(_ db: Database) throws -> BulkInsert {
        func definitions(_ type: String) throws -> [(name: String, sql: String)] {
            try Row.fetchAll(
                db,
                sql: """
                    SELECT name, sql FROM sqlite_master
                    WHERE type = ? AND tbl_name IN ('song', 'songTag') AND sql IS NOT NULL ORDER BY name
                    """, arguments: [type]
            ).map { ($0[0], $0[1]) }
        }
        let indexes = try definitions("index")
        let triggers = try definitions("trigger")
        for index in indexes { try db.execute(sql: "DROP INDEX \(index.name.quotedDatabaseIdentifier)") }
        for trigger in triggers { try db.execute(sql: "DROP TRIGGER \(trigger.name.quotedDatabaseIdentifier)") }
        return BulkInsert(indexes: indexes.map(\.sql), triggers: triggers.map(\.sql))
    }

    /// Makes again what ``dropForBulkInsert(_:)`` dropped, each index built once by sorting its
    /// rows, and fills the trigram index with one statement.
    static func restoreAfterBulkInsert(_ db: Database, _ dropped: BulkInsert) throws {
        for index in dropped.indexes { try db.execute(sql: index) }
        try db.execute(sql: "INSERT INTO songTagText(songTagText) VALUES ('delete-all')")
        try db.execute(
            sql:
                "INSERT INTO songTagText(rowid, folded) SELECT id, folded FROM songTag WHERE tag IN (\(indexedTagList))"
        )
        for trigger in dropped.triggers { try db.execute(sql: trigger) }
    }
}
