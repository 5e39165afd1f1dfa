/// An entry of a playlist file with what the file says of it. MPD's playlist plugins give a
/// song that is not in the database (a stream) these as its tags: a radio playlist names its
/// stations this way.
package struct PlaylistEntry: Sendable, Equatable {
    /// The entry as written: a URI or a path, not yet resolved.
    package var uri: String
    /// Extended M3U's `#EXTINF` text, which MPD's extm3u plugin makes the `Name` tag.
    package var name: String?
    /// PLS's `TitleN` or XSPF's `<title>`: the `Title` tag.
    package var title: String?
    /// XSPF's `<creator>`: the `Artist` tag.
    package var artist: String?
    /// XSPF's `<album>`: the `Album` tag.
    package var album: String?
    /// The length in seconds (`#EXTINF`, `LengthN`, `<duration>`), when the file gives a
    /// positive one.
    package var duration: Double?

    /// An entry the file says nothing more of.
    package init(uri: String) { self.uri = uri }
}

extension PlaylistFormat {
    /// The entries of a playlist file's text with what it says of each.
    package func describedEntries(of text: String) -> [PlaylistEntry] {
        switch self {
        case .m3u: Self.m3uDescribedEntries(text)
        case .pls: Self.plsDescribedEntries(text)
        case .xspf: XSPFReader.entries(in: Array(text.utf8))
        }
    }

    /// The entries of an `.m3u`; when it starts with `#EXTM3U`, each `#EXTINF:SECONDS,TEXT`
    /// describes the entry after it, as MPD's extm3u plugin reads it (a duration of 0 or less is
    /// none).
    static func m3uDescribedEntries(_ text: String) -> [PlaylistEntry] {
        let lines = lines(of: text).map { $0.trimmingBlanks() }
        let extended = lines.first?.hasPrefix("#EXTM3U") == true
        var entries: [PlaylistEntry] = []
        var pending: PlaylistEntry?
        for line in lines {
            if extended, line.hasPrefix("#EXTINF:") {
                var info = PlaylistEntry(uri: "")
                let rest = line.dropFirst("#EXTINF:".count)
                let comma = rest.firstIndex(of: ",") ?? rest.endIndex
                if let seconds = Double(rest[..<comma].trimmingBlanks()), seconds > 0 { info.duration = seconds }
                if comma < rest.endIndex {
                    let name = rest[rest.index(after: comma)...].trimmingBlanks()
                    if !name.isEmpty { info.name = String(name) }
                }
                pending = info
                continue
            }
            if line.isEmpty || line.unicodeScalars.first == "#" { continue }
            var entry = pending ?? PlaylistEntry(uri: "")
            entry.uri = String(line)
            entries.append(entry)
            pending = nil
        }
        return entries
    }

    /// The `FileN` entries of a `.pls` with their `TitleN` and `LengthN` (a length of 0 or less,
    /// MPD's `-1` for a live stream, is none), in the order of N.
    static func plsDescribedEntries(_ text: String) -> [PlaylistEntry] {
        var titles: [Int: String] = [:]
        var lengths: [Int: Double] = [:]
        let uris = plsEntries(text) { key, index, value in
            if key == "title" { titles[index] = value }
            if key == "length", let seconds = Double(value), seconds > 0 { lengths[index] = seconds }
        }
        return uris.map { index, uri in
            var entry = PlaylistEntry(uri: uri)
            entry.title = titles[index]
            entry.duration = lengths[index]
            return entry
        }
    }
}
