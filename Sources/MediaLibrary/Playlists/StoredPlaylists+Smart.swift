import Platform

#if canImport(Glibc)
    import Glibc
#endif

/// The smart playlists' files: `NAME.smartpl` in the playlist directory, beside the `.m3u`
/// files (docs/smart-playlists.md). MPD lists only `.m3u` files there, so a directory shared
/// with MPD shows it nothing new.
///
/// The store keeps their text only; what the text means is read by the server (the rule's
/// syntax is the protocol's filter syntax). A smart playlist hides a stored playlist of the
/// same name, and the editing changes of the store refuse its name
/// (``LibraryError/smartPlaylistNotEditable(_:)``).
extension StoredPlaylists {
    /// The file name suffix of a smart playlist.
    package static let smartSuffix = ".smartpl"

    /// The file of a smart playlist.
    package func smartPath(of name: String) -> String { directory + "/" + name + Self.smartSuffix }

    /// Every smart playlist file, sorted by name, as ``list()`` lists the stored ones.
    package func smartList() throws(LibraryError) -> [StoredPlaylistInfo] {
        try files(withSuffix: Self.smartSuffix)
    }

    /// Whether a smart playlist of this name exists (a file, readable or not).
    package func isSmart(_ name: String) -> Bool {
        guard Self.isValidName(name) else { return false }
        var info = stat()
        return stat(smartPath(of: name), &info) == 0
    }

    /// A smart playlist file's text and its modification time; `nil` when there is none.
    package func smartText(of name: String) throws(LibraryError) -> (text: String, lastModified: Int64)? {
        guard Self.isValidName(name) else { return nil }
        var info = stat()
        guard stat(smartPath(of: name), &info) == 0 else { return nil }
        guard let text = try read(smartPath(of: name)) else { return nil }
        return (text, Int64(info.st_mtim.tv_sec))
    }

    /// Writes a smart playlist's file, new or in place of its old one, on ``changes``.
    /// - Throws: ``LibraryError/playlistExists(_:)`` when a stored playlist has the name (it is
    ///   not turned into a smart one behind its back: `rm` it first).
    package func saveSmart(_ text: String, as name: String) async throws(LibraryError) {
        try Self.validate(name)
        try await changes.run { [self] () throws(LibraryError) in
            if !isSmart(name), exists(name) { throw .playlistExists(name) }
            try writeFile(text, to: smartPath(of: name))
            onChange()
        }
    }

    /// Writes a smart playlist's file on the caller's thread, without raising idle
    /// `stored_playlist`: the default set, written at start before any client is there.
    package func writeSmartFile(_ text: String, as name: String) throws(LibraryError) {
        try Self.validate(name)
        try writeFile(text, to: smartPath(of: name))
    }

    /// Writes a file of the playlist directory that is no playlist, on the caller's thread.
    package func writeFileInDirectory(_ text: String, named fileName: String) throws(LibraryError) {
        try writeFile(text, to: directory + "/" + fileName)
    }

    /// Throws ``LibraryError/smartPlaylistNotEditable(_:)`` when `name` is a smart playlist.
    func refuseSmart(_ name: String) throws(LibraryError) {
        if isSmart(name) { throw .smartPlaylistNotEditable(name) }
    }
}
