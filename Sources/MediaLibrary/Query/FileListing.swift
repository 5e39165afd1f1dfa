import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A file or folder on disk, as `listfiles` shows it.
public struct DiskEntry: Sendable, Equatable {
    /// The name within its folder.
    public var name: String
    /// Whether it is a folder.
    public var isDirectory: Bool
    /// The size in bytes (files only).
    public var size: Int64
    /// The modification time (UNIX seconds).
    public var mtime: Int64
}

extension MediaLibrary {
    /// Everything in the folder `uri` of the music directory, playable or not, following links;
    /// `nil` when it is not a folder. Sorted by name, for a stable answer.
    public func files(in uri: String) -> [DiskEntry]? {
        let path = absolutePath(of: uri)
        guard let handle = opendir(path) else { return nil }
        defer { closedir(handle) }
        var entries: [DiskEntry] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." || name.contains("\n") { continue }
            var info = stat()
            guard stat(path + "/" + name, &info) == 0 else { continue }
            let kind = info.st_mode & S_IFMT
            guard kind == S_IFDIR || kind == S_IFREG else { continue }
            entries.append(DiskEntry(name: name, isDirectory: kind == S_IFDIR, size: Int64(info.st_size),
                                     mtime: Int64(info.st_mtim.tv_sec)))
        }
        return entries.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }
}
