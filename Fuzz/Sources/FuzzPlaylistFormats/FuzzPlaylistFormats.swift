import PlaylistFormats

/// Feeds arbitrary bytes to the playlist readers as the text of an `.m3u` (both the playing
/// and the editing reading), a `.pls` and an `.xspf` (a remote server chooses what it sends),
/// with and without what each says of its entries, and resolves every entry the way loading a playlist
/// does, with the first line as the playlist's own URI. Beyond surviving, it checks what the
/// parsers promise: entries are single non-empty lines that are not comments, a stored
/// playlist written back reads back the same, and a resolved library URI has no empty, `.`
/// or `..` segment.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlaylistFormats(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // Playlist files are read as UTF-8 with invalid bytes replaced, as the library does.
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let firstLine = String(text.unicodeScalars.prefix { $0 != "\n" })
    _ = PlaylistFormat(suffixOf: firstLine)

    let playing = PlaylistFormat.m3u.entries(of: text)
    let editing = PlaylistFormat.m3uEntries(text, stripWhitespace: false)
    let pls = PlaylistFormat.pls.entries(of: text)
    for format in [PlaylistFormat.m3u, .pls, .xspf] {
        let described = format.describedEntries(of: text)
        precondition(described.allSatisfy { !$0.uri.isEmpty }, "an entry without a URI")
        precondition(described.allSatisfy { ($0.duration ?? 1) > 0 }, "a length of zero or less kept")
        if format != .m3u {
            precondition(described.map(\.uri) == format.entries(of: text), "the two readings differ")
        }
    }
    for entry in playing + editing + pls {
        precondition(!entry.isEmpty, "an empty entry")
        precondition(!entry.unicodeScalars.contains("\n"), "an entry spans lines")
    }
    for entry in playing + editing {
        precondition(entry.unicodeScalars.first != "#", "a comment line read as an entry")
    }
    precondition(playing.count <= editing.count, "stripping blanks found more entries")

    // What `save` writes (one entry a line) must read back as the same entries, unless an
    // entry ends in a carriage return, which the reader takes for a CRLF line end.
    let written = editing.filter { $0.unicodeScalars.last != "\r" }
    precondition(
        PlaylistFormat.m3uEntries(PlaylistFormat.m3uText(written), stripWhitespace: false) == written,
        "a written stored playlist read back differently")

    let resolver = PlaylistEntryResolver(musicDirectory: "/music/")
    let base = PlaylistEntryResolver.folder(of: firstLine)
    for entry in playing + pls {
        let target = resolver.resolve(entry, base: base)
        guard target.isLibraryURI else { continue }
        precondition(PlaylistEntryResolver.isSafeLocal(target.uri), "an unsafe library URI")
        precondition(!target.uri.hasPrefix("/"), "a library URI is absolute")
        precondition(
            PlaylistEntryResolver.squashDotSegments(target.uri) == target.uri,
            "dot segments left in a library URI")
    }
    return 0
}
