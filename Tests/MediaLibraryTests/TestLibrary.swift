import Foundation
import GRDB
import Logging
import MusicModel

@testable import MediaLibrary

/// A database in a temporary directory with songs written as the scanner writes them.
struct TestLibrary {
    /// The database.
    let store: LibraryStore
    /// Where it is; ``remove()`` deletes it.
    let directory: String

    /// One song: its file name (under the root) and its tags, in stored order.
    typealias Entry = (name: String, tags: [TagValue], duration: Double?)

    /// Writes `songs`, in order, into a new database.
    init(_ songs: [Entry]) throws {
        directory = NSTemporaryDirectory() + "tonearm-library-test-\(UUID().uuidString)"
        store = try LibraryStore(path: directory + "/db.sqlite")
        try store.pool.write { db in
            for song in songs {
                try SongWriter.write(
                    DiskTree.File(uri: song.name, mtime: 1, size: 1),
                    FileMetadata(tags: song.tags, duration: song.duration),
                    directory: 1, existing: nil, now: 1, db
                )
            }
        }
    }

    /// Runs `body` in a read transaction.
    func read<T>(_ body: (Database) throws -> T) throws -> T { try store.read(body) }

    /// A ``Library`` over this database, for the queries the server makes.
    func library() throws -> Library {
        try Library(
            settings: Library.Settings(
                musicDirectory: directory, databasePath: directory + "/db.sqlite", songSuffixes: ["mp3"],
                tagMask: TagMask(metadataToUse: nil)),
            logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }
        ) { _ in }
    }

    /// Deletes the database.
    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

/// Tag values from (type, value) pairs.
func tags(_ pairs: (TagType, String)...) -> [TagValue] { pairs.map { TagValue($0.0, $0.1) } }

/// Songs covering MPD's rules for `list` and `count … group`: the AlbumArtist → Artist
/// fallback, multi-value tags, songs without the tag (the empty value), byte order (upper
/// case before lower case, UTF-8 after ASCII) and songs repeating the previous one's values.
let mixedSongs: [TestLibrary.Entry] = [
    ("1.mp3", tags((.artist, "A"), (.albumArtist, "X"), (.album, "Al1"), (.title, "one")), 10),
    ("2.mp3", tags((.artist, "B"), (.album, "Al1"), (.title, "two")), 20),
    ("3.mp3", tags((.artist, "A"), (.artist, "B"), (.artist, "A"), (.album, "Al2")), 30),
    ("4.mp3", [], nil),
    ("5.mp3", tags((.artist, "A"), (.albumArtist, "X"), (.album, "Al1"), (.title, "five")), 50),
    ("5b.mp3", tags((.artist, "A"), (.albumArtist, "X"), (.album, "Al1"), (.title, "five b")), 5),
    ("6.mp3", tags((.album, "Äl"), (.artist, "a")), 60),
]
