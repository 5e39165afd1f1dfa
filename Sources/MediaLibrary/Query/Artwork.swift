import Foundation

extension Library {
    /// MPD's cover file names, tried first and exactly as written.
    static let mpdCoverNames = ["cover.png", "cover.jpg", "cover.jxl", "cover.webp"]

    /// The cover file for `uri`: MPD's names in the folder before its last slash, then the
    /// configured `album_art_names` in any letter case. Returns the URI of the file.
    ///
    /// Like MPD, only the folder part counts: the song need not exist. `uri` must not climb
    /// out of the music directory with `..`.
    package func coverFile(for uri: String) -> String? {
        coverFile(inFolder: uri.lastIndex(of: "/").map { String(uri[..<$0]) } ?? "")
    }

    /// The cover file in `folder` (`""` is the music directory), as ``coverFile(for:)`` finds it.
    package func coverFile(inFolder folder: String) -> String? {
        func uriOf(_ name: String) -> String { folder.isEmpty ? name : folder + "/" + name }
        for name in Self.mpdCoverNames where isRegularFile(absolutePath(of: uriOf(name))) {
            return uriOf(name)
        }
        guard !settings.albumArtNames.isEmpty else { return nil }
        // Names only: a `stat` of every file in the folder (an album's songs) cost more than
        // the rest of the command; only the names that match are looked at.
        let wanted = settings.albumArtNames.map { $0.lowercased() }
        var candidates: [String] = []
        do {
            try Self.forEachName(inFolder: absolutePath(of: folder)) { name in
                if wanted.contains(name.lowercased()) { candidates.append(name) }
            }
        } catch {
            return nil
        }
        // Of names differing in case only, the first by bytes, whatever the directory order.
        candidates.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for lowered in wanted {
            let match = candidates.first { $0.lowercased() == lowered && isRegularFile(absolutePath(of: uriOf($0))) }
            if let match { return uriOf(match) }
        }
        return nil
    }

    private func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// Up to `length` bytes of the file at `uri` from `offset`, and the file's size.
    /// - Throws: when the file cannot be read.
    package func readChunk(of uri: String, offset: Int, length: Int) throws -> (bytes: [UInt8], size: Int) {
        guard let handle = FileHandle(forReadingAtPath: absolutePath(of: uri)) else {
            throw CocoaError(.fileReadNoSuchFile)
        }
        defer { try? handle.close() }
        let size = Int(try handle.seekToEnd())
        guard offset < size else { return ([], size) }
        try handle.seek(toOffset: UInt64(offset))
        let data = try handle.read(upToCount: length) ?? Data()
        return ([UInt8](data), size)
    }
}
