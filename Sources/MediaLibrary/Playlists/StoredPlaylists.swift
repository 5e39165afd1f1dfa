import Foundation
package import Platform

#if canImport(Glibc)
    import Glibc
    import PlaylistFormats
#endif

/// A stored playlist as `listplaylists` shows it.
package struct StoredPlaylistInfo: Sendable, Equatable {
    /// The name: the file name without `.m3u`.
    package var name: String
    /// The file's modification time (UNIX seconds).
    package var lastModified: Int64

    /// Creates an entry.
    package init(name: String, lastModified: Int64) {
        self.name = name
        self.lastModified = lastModified
    }
}

/// How `save` treats a playlist of the same name (MPD 0.24).
package enum PlaylistSaveMode: String, Sendable, CaseIterable {
    /// Fail when it exists (the default).
    case create
    /// Add the queue at its end; fail when it does not exist.
    case append
    /// Overwrite it; fail when it does not exist.
    case replace
}

/// The stored playlists: `NAME.m3u` files in `playlist_directory`, one URI a line, as MPD keeps
/// them (the seed's "playlist" with a name), and beside them the smart playlists' `NAME.smartpl`
/// files (StoredPlaylists+Smart.swift), which the edits here refuse.
///
/// Every change rewrites the whole file through a temporary file in the same directory, an
/// `fsync` and a `rename`, so a reader, a crash or a full disk never leaves half a playlist.
/// Changes run one at a time on a queue of their own (``changes``), so two clients editing one
/// playlist cannot lose each other's edit, and the caller awaits them: the callers are
/// sessions on their event loops, which must not wait for the disk (docs/internals.md,
/// Concurrency). Reading takes no lock and runs on the caller's thread, as the database's
/// queries do: a rename makes each file appear whole.
///
/// Failures are ``LibraryError``s: a bad name, a missing playlist, one that exists already,
/// one that would grow too large, and failed file operations.
package final class StoredPlaylists: Sendable {
    /// The playlist directory, without a trailing slash.
    package let directory: String
    /// `max_playlist_length`: the most entries a stored playlist may get.
    package let maximumLength: Int
    /// The music directory when `save_absolute_paths_in_playlists` is on: relative entries are
    /// then written as absolute paths below it.
    package let absolutePathRoot: String?
    private let resolver: PlaylistEntryResolver
    /// Where every change runs, one at a time, off the caller's thread.
    package let changes = BlockingWorkQueue(label: "tonearm.playlists")
    /// Called after every change, on ``changes`` (idle `stored_playlist`); the smart playlists'
    /// changes call it too.
    let onChange: @Sendable () -> Void

    /// Creates the store. The directory is made when the first playlist is written.
    /// - Parameters:
    ///   - musicDirectory: absolute paths below it in playlist files are read as library URIs.
    ///   - saveAbsolutePaths: `save_absolute_paths_in_playlists`.
    ///   - onChange: called after every change (MPD's idle `stored_playlist`), on ``changes``
    ///     before the change's caller resumes.
    package init(
        directory: String,
        maximumLength: Int,
        musicDirectory: String,
        saveAbsolutePaths: Bool = false,
        onChange: @escaping @Sendable () -> Void = {}
    ) {
        var directory = directory
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        self.directory = directory
        self.maximumLength = maximumLength
        resolver = PlaylistEntryResolver(musicDirectory: musicDirectory)
        absolutePathRoot = saveAbsolutePaths ? resolver.musicDirectory : nil
        self.onChange = onChange
    }

    // MARK: Names

    /// MPD's `spl_valid_name`: not empty, no `/`, no line break.
    package static func isValidName(_ name: String) -> Bool {
        !name.isEmpty
            && !name.utf8.contains { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }
    }

    /// Throws ``LibraryError/invalidPlaylistName(_:)`` unless ``isValidName(_:)``.
    package static func validate(_ name: String) throws(LibraryError) {
        guard isValidName(name) else { throw .invalidPlaylistName(name) }
    }

    /// The file of a playlist.
    package func path(of name: String) -> String { directory + "/" + name + ".m3u" }

    // MARK: Reading

    /// Every stored playlist, sorted by name (byte order; MPD lists them in directory order).
    /// Only regular `*.m3u` files with a UTF-8 name and no line break count. A playlist
    /// directory that does not exist yet has none.
    package func list() throws(LibraryError) -> [StoredPlaylistInfo] {
        try files(withSuffix: ".m3u")
    }

    /// The regular files `NAME` + `suffix` in the directory, as ``list()`` lists `.m3u` files.
    func files(withSuffix suffix: String) throws(LibraryError) -> [StoredPlaylistInfo] {
        guard let handle = opendir(directory) else {
            if errno == ENOENT { return [] }
            throw .fileOperationFailed(.open, path: directory)
        }
        defer { closedir(handle) }
        var playlists: [StoredPlaylistInfo] = []
        while let entry = readdir(handle) {
            let bytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            let length = suffix.utf8.count
            guard bytes.count > length, bytes.suffix(length).elementsEqual(suffix.utf8),
                !bytes.contains(UInt8(ascii: "\n")),
                let name = String(validating: bytes.dropLast(length), as: UTF8.self)
            else { continue }
            var info = stat()
            guard stat(directory + "/" + name + suffix, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            playlists.append(StoredPlaylistInfo(name: name, lastModified: Int64(info.st_mtim.tv_sec)))
        }
        return playlists.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    /// Whether a playlist of this (valid) name exists, stored or smart.
    package func exists(_ name: String) -> Bool {
        var info = stat()
        return stat(path(of: name), &info) == 0 || isSmart(name)
    }

    /// The entries of a stored playlist as written (blank and `#` lines left out), for playing
    /// and listing it; `nil` when there is none of that name.
    package func entries(of name: String) throws(LibraryError) -> [String]? {
        try Self.validate(name)
        guard let text = try read(path(of: name)) else { return nil }
        return PlaylistFormat.m3uEntries(text, stripWhitespace: true)
    }

    /// How many entries an edit of the playlist starts from (what `Bad position` is checked
    /// against before the songs are looked up); `nil` when there is none of that name.
    package func editableCount(of name: String) throws(LibraryError) -> Int? {
        try Self.validate(name)
        try refuseSmart(name)
        return try editableEntries(of: name)?.count
    }

    /// The entries an edit starts from (MPD's `LoadPlaylistFile`): lines as written, absolute
    /// paths below the music directory as library URIs.
    private func editableEntries(of name: String) throws(LibraryError) -> [String]? {
        guard let text = try read(path(of: name)) else { return nil }
        return PlaylistFormat.m3uEntries(text, stripWhitespace: false).map { line in
            if line.hasPrefix("/"), let uri = resolver.libraryURI(ofPath: line) { return uri }
            return line
        }
    }

    // MARK: Changing

    /// `save NAME [MODE]`: writes `uris` (the queue) as the playlist, on ``changes``.
    /// - Throws: ``LibraryError/playlistExists(_:)`` for `create`,
    ///   ``LibraryError/noSuchPlaylist(_:)`` for `append`/`replace` of a missing one,
    ///   ``LibraryError/playlistTooLarge`` when appending would pass `max_playlist_length`.
    package func save(_ uris: [String], as name: String, mode: PlaylistSaveMode) async throws(LibraryError) {
        try Self.validate(name)
        try await changes.run { [self] () throws(LibraryError) in
            // `save` over a smart playlist: one that exists (create), or that cannot be edited.
            if isSmart(name) { throw mode == .create ? .playlistExists(name) : .smartPlaylistNotEditable(name) }
            let existing = try editableEntries(of: name)
            switch mode {
            case .create:
                if existing != nil { throw .playlistExists(name) }
                try write(uris, to: name)
            case .replace:
                guard existing != nil else { throw .noSuchPlaylist(name) }
                try write(uris, to: name)
            case .append:
                guard let existing else { throw .noSuchPlaylist(name) }
                guard existing.count + uris.count <= maximumLength else { throw .playlistTooLarge }
                try write(existing + uris, to: name)
            }
            onChange()
        }
    }

    /// Changes a playlist's entries on ``changes``: `body` gets them and says whether to write
    /// them back.
    /// - Parameter createIfMissing: start a missing playlist empty (MPD's `LoadMode::TRY`)
    ///   instead of failing with ``LibraryError/noSuchPlaylist(_:)``.
    /// - Returns: whether the playlist was written.
    @discardableResult
    package func edit(
        _ name: String,
        createIfMissing: Bool,
        _ body: @escaping @Sendable (inout [String]) throws(LibraryError) -> Bool
    ) async throws(LibraryError) -> Bool {
        try Self.validate(name)
        return try await changes.run { [self] () throws(LibraryError) -> Bool in
            try refuseSmart(name)
            var entries: [String]
            if let existing = try editableEntries(of: name) {
                entries = existing
            } else if createIfMissing {
                entries = []
            } else {
                throw .noSuchPlaylist(name)
            }
            guard try body(&entries) else { return false }
            try write(entries, to: name)
            onChange()
            return true
        }
    }

    /// `playlistclear NAME`: empties an existing playlist.
    package func clear(_ name: String) async throws(LibraryError) {
        try await edit(name, createIfMissing: false) { entries throws(LibraryError) in
            entries = []
            return true
        }
    }

    /// `rm NAME`, on ``changes``: the smart playlist of that name if there is one, else the
    /// stored one.
    package func delete(_ name: String) async throws(LibraryError) {
        try Self.validate(name)
        try await changes.run { [self] () throws(LibraryError) in
            // A smart playlist hides a stored one of the same name, so it goes first.
            let path = isSmart(name) ? smartPath(of: name) : path(of: name)
            guard unlink(path) == 0 else {
                if errno == ENOENT { throw .noSuchPlaylist(name) }
                throw .fileOperationFailed(.delete, path: path)
            }
            onChange()
        }
    }

    /// `rename NAME NEW_NAME`, on ``changes``: MPD checks the new name first, so renaming onto
    /// an existing playlist fails with ``LibraryError/renameTargetExists(_:)`` even when the
    /// old one is missing. The new name is checked against both kinds; a smart playlist stays
    /// smart.
    package func rename(_ name: String, to newName: String) async throws(LibraryError) {
        try Self.validate(name)
        try Self.validate(newName)
        try await changes.run { [self] () throws(LibraryError) in
            if exists(newName) { throw .renameTargetExists(newName) }
            let smart = isSmart(name)
            let from = smart ? smartPath(of: name) : path(of: name)
            guard Glibc.rename(from, smart ? smartPath(of: newName) : path(of: newName)) == 0 else {
                if errno == ENOENT { throw .noSuchPlaylist(name) }
                throw .fileOperationFailed(.rename, path: from)
            }
            onChange()
        }
    }

    // MARK: Files

    /// A file's text, or `nil` when it does not exist.
    func read(_ path: String) throws(LibraryError) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .fileOperationFailed(.open, path: path)
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count == 0 { break }
            guard count > 0 else {
                if errno == EINTR { continue }
                throw .fileOperationFailed(.read, path: path)
            }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes a playlist through a temporary file and `rename`, making the directory first if
    /// needed. With `save_absolute_paths_in_playlists`, relative entries are written as paths.
    private func write(_ entries: [String], to name: String) throws(LibraryError) {
        let lines = entries.map { entry -> String in
            guard let root = absolutePathRoot, !entry.hasPrefix("/"), !entry.contains("://") else { return entry }
            return root + "/" + entry
        }
        try writeFile(PlaylistFormat.m3uText(lines), to: path(of: name))
    }

    /// Writes a file of the directory through a temporary file and `rename`, making the
    /// directory first if needed.
    func writeFile(_ text: String, to path: String) throws(LibraryError) {
        if mkdir(directory, 0o755) != 0 && errno != EEXIST {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw .fileOperationFailed(.create, path: directory, reason: error.localizedDescription)
            }
        }
        do throws(AtomicFile.Failure) {
            try AtomicFile.write(Array(text.utf8), to: path)
        } catch {
            let operation: FileOperation =
                switch error.step {
                case .create: .create
                case .write: .write
                case .replace: .replace
                }
            throw .fileOperationFailed(operation, path: error.path, reason: error.reason)
        }
    }
}
