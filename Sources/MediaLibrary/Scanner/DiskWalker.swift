import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What the scanner found on disk below one directory.
struct DiskTree {
    /// A file the scanner considers: a song or a playlist candidate.
    struct File {
        /// The URI relative to the music directory.
        var uri: String
        /// Modification time (UNIX seconds).
        var mtime: Int64
        /// Size in bytes.
        var size: Int64
    }

    /// Directories by URI, with their modification times. The walk's root is included.
    var directories: [String: Int64] = [:]
    /// Files whose suffix the decoder knows.
    var songs: [File] = []
    /// Playlist files (`.m3u`, `.pls`, …).
    var playlists: [File] = []
}

/// Walks the music directory with MPD's rules: symbolic links are followed when they point
/// inside the music directory (`follow_inside_symlinks`) or outside it
/// (`follow_outside_symlinks`), a directory that contains itself through a link is not
/// entered twice, and names with a newline are skipped (they cannot be sent in the protocol).
struct DiskWalker {
    /// The music directory, absolute, without a trailing slash.
    let root: String
    /// The music directory with every link resolved, to tell inside links from outside ones.
    let realRoot: String
    /// Lowercase suffixes of files to read as songs.
    let songSuffixes: Set<String>
    /// Lowercase suffixes of playlist files.
    let playlistSuffixes: Set<String>
    /// `follow_inside_symlinks`.
    let followInsideSymlinks: Bool
    /// `follow_outside_symlinks`.
    let followOutsideSymlinks: Bool

    /// The absolute path of `uri`.
    func path(of uri: String) -> String { uri.isEmpty ? root : root + "/" + uri }

    /// What `uri` is on disk, following links by the rules above.
    enum Kind {
        case directory(mtime: Int64)
        case file(DiskTree.File)
        case missing
    }

    /// Looks at one URI.
    func kind(of uri: String) -> Kind {
        var info = stat()
        guard followedStat(path(of: uri), &info) else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory(mtime: Int64(info.st_mtim.tv_sec))
        case S_IFREG:
            return .file(DiskTree.File(uri: uri, mtime: Int64(info.st_mtim.tv_sec), size: Int64(info.st_size)))
        default: return .missing
        }
    }

    /// Walks the directory `uri` and everything below it.
    /// - Parameter visited: called with what was found so far after each directory's entries,
    ///   so that the scanner can log its progress through a long walk.
    func walk(_ uri: String, mtime: Int64, visited: (DiskTree) -> Void = { _ in }) -> DiskTree {
        var tree = DiskTree()
        tree.directories[uri] = mtime
        var ancestors: [(dev_t, ino_t)] = []
        visit(uri, into: &tree, ancestors: &ancestors, visited: visited)
        return tree
    }

    private func visit(
        _ uri: String, into tree: inout DiskTree, ancestors: inout [(dev_t, ino_t)], visited: (DiskTree) -> Void
    ) {
        let directoryPath = path(of: uri)
        var own = stat()
        guard stat(directoryPath, &own) == 0 else { return }
        if ancestors.contains(where: { $0.0 == own.st_dev && $0.1 == own.st_ino }) { return }
        ancestors.append((own.st_dev, own.st_ino))
        defer { ancestors.removeLast() }
        guard let handle = opendir(directoryPath) else { return }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." || name.contains("\n") { continue }
            names.append(name)
        }
        closedir(handle)
        for name in names {
            let childURI = uri.isEmpty ? name : uri + "/" + name
            let childPath = directoryPath + "/" + name
            var info = stat()
            guard followedStat(childPath, &info) else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                tree.directories[childURI] = Int64(info.st_mtim.tv_sec)
                visit(childURI, into: &tree, ancestors: &ancestors, visited: visited)
            case S_IFREG:
                let file = DiskTree.File(uri: childURI, mtime: Int64(info.st_mtim.tv_sec), size: Int64(info.st_size))
                let suffix = Self.suffix(of: name)
                if playlistSuffixes.contains(suffix) {
                    tree.playlists.append(file)
                } else if songSuffixes.contains(suffix) {
                    tree.songs.append(file)
                }
            default:
                continue
            }
        }
        visited(tree)
    }

    /// `stat` through a symbolic link when the link rules allow following it. The directory
    /// watcher uses it too, so `auto_update` watches exactly the directories a scan enters.
    func followedStat(_ path: String, _ info: inout stat) -> Bool {
        guard lstat(path, &info) == 0 else { return false }
        guard info.st_mode & S_IFMT == S_IFLNK else { return true }
        guard followInsideSymlinks || followOutsideSymlinks else { return false }
        guard let resolved = realpath(path, nil) else { return false }
        let target = String(cString: resolved)
        free(resolved)
        let inside = target == realRoot || target.hasPrefix(realRoot + "/")
        guard inside ? followInsideSymlinks : followOutsideSymlinks else { return false }
        return stat(path, &info) == 0
    }

    /// The lowercase suffix of a file name, without the dot; `""` when it has none.
    static func suffix(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return name[name.index(after: dot)...].lowercased()
    }
}
