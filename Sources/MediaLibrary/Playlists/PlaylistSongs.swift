import Foundation
import GRDB
package import MusicModel
package import PlaylistFormats

#if canImport(Glibc)
    import Glibc
#endif

/// What the library offers the playlist commands: the entries of playlist files in the music
/// folder, and the songs that playlist entries name.
extension Library {
    /// How many URIs one lookup binds: well below SQLite's limit on statement parameters.
    static let lookupBatch = 500

    /// The entries of a playlist file in the music folder (`.m3u`, `.m3u8`, `.pls`, `.xspf`), as written;
    /// `nil` when `uri` names no regular file of a format Tonearm reads. The file is read from
    /// disk whether or not the scanner has seen it yet, as MPD opens it through its storage.
    package func playlistFileEntries(_ uri: String) throws(LibraryError) -> [PlaylistEntry]? {
        guard let format = PlaylistFormat(suffixOf: uri) else { return nil }
        let path = absolutePath(of: uri)
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .fileOperationFailed(.open, path: path)
        }
        return format.describedEntries(of: String(decoding: data, as: UTF8.self))
    }

    /// The songs among `uris` that are in the database, by URI.
    package func songs(atURIs uris: some Collection<String>) async throws -> [String: Song] {
        var found: [String: Song] = [:]
        found.reserveCapacity(uris.count)
        try await forEachBatch(of: uris) { batch, placeholders in
            let songs = try store.read { db in
                try LibraryStore.fetchSongs(
                    db,
                    where: SQLFragment(
                        "s.uri IN (\(placeholders))", batch.map { $0 as (any DatabaseValueConvertible)? }),
                    // Every full batch has the same statement: parsed once, not once a batch.
                    cached: batch.count == Self.lookupBatch)
            }
            for song in songs { found[song.uri] = song }
        }
        return found
    }

    /// The URIs among `uris` whose songs match `filter` (`searchplaylist`).
    /// - Throws: ``LibraryError/invalidRegularExpression(pattern:syntax:)`` or
    ///   ``LibraryError/noSuchDirectory(_:)`` (a `base` naming nothing in the database), as
    ///   `search` does.
    package func uris(matching filter: FilterExpression, among uris: some Collection<String>) async throws -> Set<
        String
    > {
        try Self.validateRegexes(filter)
        let condition = FilterSQL.condition(filter)
        var matching: Set<String> = []
        try await forEachBatch(of: uris) { batch, placeholders in
            let found = try store.read { db in
                try Self.validateBase(db, filter)
                return try String.fetchAll(
                    db, sql: "SELECT s.uri FROM song s WHERE s.uri IN (\(placeholders)) AND (\(condition.sql))",
                    arguments: StatementArguments(batch.map(\.databaseValue) + condition.arguments))
            }
            matching.formUnion(found)
        }
        return matching
    }

    /// Calls `body` with the distinct `uris` in batches of ``lookupBatch``, each with the `?`
    /// placeholders of an SQL `IN (…)` list of its size.
    ///
    /// The batches follow the byte order of the URIs, the order of the `uri` index: SQLite
    /// reads the index and the rows near each other from one batch to the next, where batches
    /// of a `Set`'s order each touched pages all over the file (a 100,000-song queue read its
    /// pages again and again through the connection's small cache, a fifth of a restart).
    private func forEachBatch(
        of uris: some Collection<String>,
        _ body: ([String], String) async throws -> Void
    ) async throws {
        var unique = Array(uris)
        unique.sort(by: ByteOrder.precedes)
        unique.removeAdjacentDuplicates()
        var start = 0
        while start < unique.count {
            let batch = Array(unique[start..<min(start + Self.lookupBatch, unique.count)])
            start += batch.count
            try await body(batch, Array(repeating: "?", count: batch.count).joined(separator: ","))
        }
    }
}

extension Array where Element: Equatable {
    /// Removes each element equal to the one before it: on a sorted array, every duplicate.
    fileprivate mutating func removeAdjacentDuplicates() {
        guard var last = first else { return }
        var kept = 1
        for index in indices.dropFirst() where self[index] != last {
            last = self[index]
            swapAt(kept, index)
            kept += 1
        }
        removeSubrange(kept...)
    }
}
