import MPDProtocol
import MediaLibrary
import MusicModel
import Playback
import PlaylistFormats
import Settings

/// A playlist the reading commands and `load` name: a stored playlist, else a playlist file in
/// the music folder (MPD's `playlist_mapper_open`: the playlist directory is tried first, so a
/// stored `mix.m3u` hides the music folder's `mix.m3u`).
struct PlaylistSource {
    /// One entry, read relative to the playlist and looked up in the database.
    struct Entry {
        /// The song's URI, or the entry as translated when it is not a database song.
        var uri: String
        /// The database song, if the entry names one, or a stream the decoder plays.
        var song: Song?
    }

    /// The entries as the file lists them, with what it says of each.
    let entries: [PlaylistEntry]
    /// A remote playlist went on past what is read of one (``RemoteDocument/sizeLimit``):
    /// `load` queues the entries read, then answers that the playlist is too large, as MPD
    /// answers once such a playlist has filled the queue.
    var isTruncated = false
    /// The folder relative entries are read against (`""` for stored playlists).
    let base: String
    private let library: Library?
    private let resolver: PlaylistEntryResolver

    /// MPD's `LocateUri` for a playlist argument. A name with an empty, `.` or `..` segment
    /// passes, as in MPD 0.23, and ``open(_:_:)`` then finds no playlist by it (0.24.11 answers
    /// `Bad relative path` here).
    /// - Throws: ACK 4 `Access denied` for a file path or `file://` URI (MPD allows them to
    ///   local clients; Tonearm reads no files outside its folders), ACK 2 `Malformed file:// URI`.
    static func locate(_ argument: String) throws(MPDError) {
        // An absolute path is a file path even when "://" appears later in it, as in MPD.
        if !argument.hasPrefix("/") && argument.contains("://") && !LibraryURI.hasFilePrefix(argument) {
            return  // a remote playlist: `open` fetches it when it has a scheme the decoder plays
        }
        _ = try LibraryURI.local(argument, allowEmpty: false)
    }

    /// Opens the playlist `argument` names. A smart playlist's rule is evaluated now: its
    /// entries are the songs it chooses (docs/smart-playlists.md).
    /// - Throws: ``LibraryError/noSuchPlaylist(_:)`` when neither a smart or stored playlist nor
    ///   a readable playlist file in the music folder has that name, and for a URL that gives
    ///   no playlist (``remoteEntries(_:network:)``);
    ///   ``LibraryError/invalidSmartPlaylist(_:line:reason:)`` for a smart playlist's file that
    ///   does not read.
    static func open(_ argument: String, _ server: ServerContext) async throws -> PlaylistSource {
        let library = server.library
        let resolver = PlaylistEntryResolver(
            musicDirectory: library?.settings.musicDirectory ?? server.configuration.musicDirectory)
        if let smart = try server.smartPlaylists.entry(named: argument) {
            let uris = try await server.smartPlaylists.songURIs(smart.definition)
            return PlaylistSource(
                entries: uris.map(PlaylistEntry.init(uri:)), base: "", library: library, resolver: resolver)
        }
        if RemoteStream.isSupported(argument) {
            let (entries, truncated) = try await remoteEntries(argument, network: server.configuration.streamInput)
            var source = PlaylistSource(entries: entries, base: "", library: library, resolver: resolver)
            source.isTruncated = truncated
            return source
        }
        if !argument.contains("://") {
            if StoredPlaylists.isValidName(argument), let entries = try server.storedPlaylists.entries(of: argument) {
                return PlaylistSource(
                    entries: entries.map(PlaylistEntry.init(uri:)), base: "", library: library, resolver: resolver)
            }
            // Never a file by a name that climbs out of its folder.
            if let library, LibraryURI.isSafeLocal(argument), let entries = try library.playlistFileEntries(argument) {
                return PlaylistSource(
                    entries: entries, base: PlaylistEntryResolver.folder(of: argument),
                    library: library, resolver: resolver)
            }
        }
        throw LibraryError.noSuchPlaylist(argument)
    }

    /// The streams a remote playlist lists, as absolute URLs: its format from the server's
    /// `Content-Type`, else from the URL's suffix; entries relative to the playlist's URL.
    /// Paths and `file://` URIs are left out: a server must not make Tonearm read local files.
    /// - Returns: the entries, and whether the playlist went on past what was read (its last,
    ///   cut entry is left out).
    /// - Throws: ``LibraryError/noSuchPlaylist(_:)`` when it cannot be read or is no playlist
    ///   (MPD's answer when no playlist plugin takes it).
    static func remoteEntries(_ url: String, network: StreamInputSettings) async throws -> (
        entries: [PlaylistEntry], truncated: Bool
    ) {
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? url
        let bySuffix = PlaylistFormat(suffixOf: path)
        @Sendable func format(_ mimeType: String?) -> PlaylistFormat? {
            mimeType.flatMap(PlaylistFormat.init(mimeType:)) ?? bySuffix
        }
        let document: RemoteDocument
        do throws(RemoteDocument.Failure) {
            // A station's audio is no playlist: known from its headers, before any of it is read.
            document = try await RemoteDocument.fetch(url, network: network) { format($0) != nil }
        } catch {
            throw LibraryError.noSuchPlaylist(url)
        }
        guard let format = format(document.mimeType) else { throw LibraryError.noSuchPlaylist(url) }
        let folder = path[..<(path.lastIndex(of: "/") ?? path.endIndex)]
        var bytes = document.bytes[...]
        if document.isTruncated, let lastLineFeed = bytes.lastIndex(of: UInt8(ascii: "\n")) {
            bytes = bytes[...lastLineFeed]
        }
        let entries = format.describedEntries(of: String(decoding: bytes, as: UTF8.self)).compactMap {
            entry -> PlaylistEntry? in
            var entry = entry
            if RemoteStream.hasScheme(entry.uri) { return RemoteStream.isSupported(entry.uri) ? entry : nil }
            if entry.uri.hasPrefix("/") { return nil }
            entry.uri = folder + "/" + entry.uri
            return entry
        }
        return (entries, document.isTruncated)
    }

    /// A stream entry as a song, with what the playlist says of it as its tags, as MPD's
    /// playlist plugins give them.
    static func stream(_ url: String, _ entry: PlaylistEntry) -> Song {
        var tags: [TagValue] = []
        if let name = entry.name { tags.append(TagValue(.name, name)) }
        if let title = entry.title { tags.append(TagValue(.title, title)) }
        if let artist = entry.artist { tags.append(TagValue(.artist, artist)) }
        if let album = entry.album { tags.append(TagValue(.album, album)) }
        var song = Song(streamURL: url, tags: tags)
        song.duration = entry.duration
        return song
    }

    /// The entries at `indices`, translated and looked up in the database with one query per
    /// few hundred entries.
    func resolve(_ indices: some Sequence<Int>) async throws -> [Entry] {
        let described = indices.map { entries[$0] }
        let targets = described.map { resolver.resolve($0.uri, base: base) }
        let songs = try await library?.songs(atURIs: targets.filter(\.isLibraryURI).map(\.uri)) ?? [:]
        return zip(targets, described).map { target, entry in
            if RemoteStream.isSupported(target.uri) {
                return Entry(uri: target.uri, song: Self.stream(target.uri, entry))
            }
            let song = target.isLibraryURI ? songs[target.uri] : nil
            return Entry(uri: song?.uri ?? target.uri, song: song)
        }
    }
}
