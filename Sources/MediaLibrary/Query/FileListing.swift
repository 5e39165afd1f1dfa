import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file or folder on disk, as `listfiles` shows it.
package struct DiskEntry: Sendable, Equatable {
    /// The name within its folder.
    package var name: String
    /// Whether it is a folder.
    package var isDirectory: Bool
    /// The size in bytes (files only).
    package var size: Int64
    /// The modification time (UNIX seconds).
    package var mtime: Int64
}

extension Library {
    /// Everything in the folder `uri` of the music directory, playable or not, in the order
    /// the file system lists it (MPD does not sort `listfiles`).
    ///
    /// `uri` is appended to the music directory as given, as MPD's local storage does.
    /// Without `followingLinks`, symbolic links are left out, as MPD's `listfiles` reads each
    /// entry with `lstat`; with it, a link counts as what it points to. Names with a line feed
    /// and entries that are neither files nor folders are left out.
    /// - Throws: ``LibraryError/fileOperationFailed(_:path:reason:)`` when the folder cannot
    ///   be opened.
    package func files(in uri: String, followingLinks: Bool = false) throws(LibraryError) -> [DiskEntry] {
        let path = absolutePath(of: uri)
        var entries: [DiskEntry] = []
        try Self.forEachName(inFolder: path) { name in
            var info = stat()
            let entryPath = path + "/" + name
            guard (followingLinks ? stat(entryPath, &info) : lstat(entryPath, &info)) == 0 else { return }
            let kind = info.st_mode & S_IFMT
            guard kind == S_IFDIR || kind == S_IFREG else { return }
            entries.append(
                DiskEntry(
                    name: name, isDirectory: kind == S_IFDIR, size: Int64(info.st_size),
                    mtime: Int64(info.st_mtim.tv_sec)))
        }
        return entries
    }

    /// Calls `body` with the name of each entry of the folder at the absolute `path`, in the
    /// order the file system lists them, but `.`, `..` and names with a line feed.
    /// - Throws: ``LibraryError/fileOperationFailed(_:path:reason:)`` when the folder cannot
    ///   be opened.
    static func forEachName(inFolder path: String, _ body: (String) -> Void) throws(LibraryError) {
        guard let handle = opendir(path) else { throw .fileOperationFailed(.open, path: path) }
        defer { closedir(handle) }
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." || name.contains("\n") { continue }
            body(name)
        }
    }
}
