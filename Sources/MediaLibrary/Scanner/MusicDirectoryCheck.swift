#if canImport(Glibc)
    import Glibc
#endif

/// Whether the music folder can be scanned, and if not, why, in MPD's words
/// (`CheckDirectoryReadable` in MPD's `ConfigGlue`).
package enum MusicDirectoryCheck: Sendable, Equatable {
    /// A readable folder with at least one entry.
    case usable
    /// A readable folder with nothing in it.
    case empty
    /// `stat` failed; the reason is the system's (`No such file or directory`).
    case missing(reason: String)
    /// It exists but is no folder, or cannot be entered or read: the whole message, and what
    /// to do about that folder.
    case unusable(String, remedy: String)

    /// What to do about a folder the server may not enter or list.
    private static let permissionsRemedy = "let the user tonearm runs as read and enter it (chmod a+rX)"

    /// Checks `path` as the scanner will use it: entered (execute) and listed (read).
    package init(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            self = .missing(reason: String(cString: strerror(errno)))
            return
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            self = .unusable("Not a directory: \(path)", remedy: "make it a folder that holds your music")
            return
        }
        // Stat'ing "." inside fails with EACCES when the folder cannot be entered, as in MPD.
        if stat(path + "/.", &info) != 0, errno == EACCES {
            self = .unusable(
                "No permission to traverse (\"execute\") directory: \(path)", remedy: Self.permissionsRemedy)
            return
        }
        guard let directory = opendir(path) else {
            let reason = errno
            self = .unusable(
                reason == EACCES
                    ? "No permission to read directory: \(path)"
                    : "Failed to open directory \(path): \(String(cString: strerror(reason)))",
                remedy: Self.permissionsRemedy)
            return
        }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." {
                self = .usable
                return
            }
        }
        self = .empty
    }
}
