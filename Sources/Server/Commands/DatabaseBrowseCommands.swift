import MPDProtocol
import MediaLibrary
import MusicModel
import Settings

/// The browsing commands of MPD's "music database" group: `lsinfo`, `listall`,
/// `listallinfo`, `listfiles`.
enum DatabaseBrowseCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("listall", permission: .read, arguments: .between(0, 1), handler: listAll),
        CommandDefinition("listallinfo", permission: .read, arguments: .between(0, 1), handler: listAllInfo),
        CommandDefinition("listfiles", permission: .read, arguments: .between(0, 1), handler: listFiles),
        CommandDefinition("lsinfo", permission: .read, arguments: .between(0, 1), handler: lsinfo),
    ]

    /// How much one database read prints while a listing streams: 64 KiB (about 200 song
    /// blocks or 1,000 names), a millisecond of work, which the other sessions of the event
    /// loop wait for at most before they are served (see ``CommandInvocation/flushIfLarge()``).
    /// Counted in bytes, as an entry ranges from a name to a song block of dozens of lines:
    /// pages of 200 entries took most of a `listall`'s time starting reads.
    static let pageBytes = ResponseStream.flushThreshold
    /// The most entries one read fetches.
    static let pageEntries = 1000

    /// `lsinfo [URI]`: a directory's songs, playlists and subdirectories, or one song.
    static func lsinfo(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let library = try invocation.server.requireLibrary()
        let argument = invocation.arguments.first ?? ""
        // `lsinfo /` is the root (only here: to `listfiles` it is an absolute path).
        guard let uri = argument == "/" ? "" : try LibraryURI.local(argument, allowEmpty: true) else {
            throw MPDError(.noExist, "No such directory")
        }
        // A directory first: browsing clients list directories far more often than songs.
        guard try await stream(&invocation, library, uri, recursive: false, details: true) else {
            if !uri.isEmpty, let song = try library.song(at: uri) {
                SongPrinter.write(song, tags: invocation.visibleTags, to: &invocation.response)
                return .ok
            }
            throw MPDError(.noExist, "No such directory")
        }
        // The root also lists the stored playlists (deprecated; the 0.24 protocol feature
        // `hide_playlists_in_root` turns it off). A playlist directory that cannot be read
        // lists none, as in MPD.
        if uri.isEmpty && !invocation.session.protocolFeatures.contains(.hidePlaylistsInRoot) {
            for playlist in (try? invocation.server.smartPlaylists.listing()) ?? [] {
                StoredPlaylistCommands.write(playlist, to: &invocation.response)
            }
        }
        return .ok
    }

    /// `listall [URI]`: the directory URI (unless it is the root), then every directory, song
    /// and playlist below it, URIs only.
    static func listAll(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        try await walkRecursively(&invocation, details: false)
    }

    /// `listallinfo [URI]`: as `listall`, with each song's block and each directory's and
    /// playlist's `Last-Modified`.
    static func listAllInfo(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        try await walkRecursively(&invocation, details: true)
    }

    private static func walkRecursively(_ invocation: inout CommandInvocation, details: Bool) async throws
        -> CommandOutcome
    {
        let library = try invocation.server.requireLibrary()
        var uri = invocation.arguments.first ?? ""
        if uri == "/" { uri = "" }
        if try await stream(&invocation, library, uri, recursive: true, details: details) { return .ok }
        // A song URI lists that song alone, as MPD's database selection does.
        if let song = try library.song(at: uri) {
            if details {
                SongPrinter.write(song, tags: invocation.visibleTags, to: &invocation.response)
            } else {
                invocation.response.append("file", song.uri)
            }
            return .ok
        }
        throw MPDError(.noExist, "No such directory")
    }

    /// Streams a directory walk page by page; `false` when there is no such directory.
    private static func stream(
        _ invocation: inout CommandInvocation,
        _ library: Library,
        _ uri: String,
        recursive: Bool,
        details: Bool
    ) async throws -> Bool {
        var cursor: Int64 = 0
        let tags = invocation.visibleTags
        while true {
            var lines = ResponseBuffer()
            let page = try await library.writeWalk(
                uri, recursive: recursive, details: details, after: cursor,
                limit: pageEntries, maximumBytes: pageBytes, into: &lines
            ) { row, lines in
                switch row {
                case .directory(let path, let lastModified):
                    if details {
                        SongPrinter.writeDirectory(path, lastModified: lastModified, to: &lines)
                    } else {
                        lines.append("directory", bytes: path)
                    }
                case .playlist(let uri, let lastModified):
                    if details {
                        SongPrinter.writePlaylist(uri, lastModified: lastModified, to: &lines)
                    } else {
                        lines.append("playlist", bytes: uri)
                    }
                case .song(let record):
                    SongPrinter.write(record, tags: tags, to: &lines)
                case .songURI(let uri):
                    lines.append("file", bytes: uri)
                }
            }
            guard page.found else { return false }
            invocation.response.append(contentsOf: lines)
            try await invocation.flushIfLarge()
            guard let next = page.next else { return true }
            cursor = next
        }
    }

    /// `listfiles [URI]`: the files and folders on disk, playable or not, names only, in
    /// directory order; `Last-Modified` where the time is known, as MPD prints it.
    static func listFiles(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let library = try invocation.server.requireLibrary()
        let uri = try LibraryURI.onDisk(invocation.arguments.first ?? "").path
        for entry in try library.files(in: uri) {
            if entry.isDirectory {
                invocation.response.append("directory", entry.name)
            } else {
                invocation.response.append("file", entry.name)
                invocation.response.append("size", entry.size)
            }
            if entry.mtime > 0 { invocation.response.append("Last-Modified", SongPrinter.timestamp(entry.mtime)) }
        }
        return .ok
    }
}

extension CommandInvocation {
    /// The tags song blocks show this client: its `tagtypes` within `metadata_to_use`.
    var visibleTags: TagMask { session.tagMask.intersection(server.metadataTags) }
}
