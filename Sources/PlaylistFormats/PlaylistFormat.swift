import Foundation

/// Reading and writing the playlist file formats Tonearm understands: MPD's plain `.m3u`
/// (which stored playlists use), extended `.m3u`/`.m3u8`, `.pls` and, for reading, `.xspf`.
///
/// Parsing yields the entries as written (URIs or paths, not yet resolved against the
/// playlist's folder or the database): ``PlaylistEntryResolver`` does that, as MPD's
/// `playlist_check_translate_song` does after its playlist plugins.
package enum PlaylistFormat: Sendable, Equatable {
    /// One entry a line; `#` lines (`#EXTM3U`, `#EXTINF`) and blank lines are skipped.
    case m3u
    /// `[playlist]` with `FileN=` keys, ordered by N.
    case pls
    /// XML Shareable Playlist Format: the `<location>` of each `<track>`.
    case xspf

    /// The format a playlist file's suffix names (ASCII case ignored), or `nil` when Tonearm
    /// cannot read it (`.asx` and `.cue` are listed by the scanner but not read yet).
    package init?(suffixOf path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        switch path[path.index(after: dot)...].lowercased() {
        case "m3u", "m3u8": self = .m3u
        case "pls": self = .pls
        case "xspf": self = .xspf
        default: return nil
        }
    }

    /// The format a server's `Content-Type` names, as MPD's m3u and pls plugins know them.
    package init?(mimeType: String) {
        switch mimeType.lowercased() {
        case "audio/x-mpegurl", "audio/mpegurl": self = .m3u
        case "audio/x-scpls": self = .pls
        case "application/xspf+xml": self = .xspf
        default: return nil
        }
    }

    /// The entries of a playlist file's text.
    package func entries(of text: String) -> [String] {
        switch self {
        case .m3u: return Self.m3uEntries(text, stripWhitespace: true)
        case .pls: return Self.plsEntries(text)
        case .xspf: return XSPFReader.entries(in: Array(text.utf8)).map(\.uri)
        }
    }

    /// The lines of an `.m3u` that name songs. MPD's m3u plugin strips blanks around each line
    /// when it plays a playlist; its stored-playlist editor keeps them (only a trailing `\r` goes),
    /// which `stripWhitespace: false` reproduces.
    package static func m3uEntries(_ text: String, stripWhitespace: Bool) -> [String] {
        var entries: [String] = []
        for rawLine in lines(of: text) {
            var line = Substring(rawLine)
            if stripWhitespace {
                line = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
                while let last = line.last, last == " " || last == "\t" || last == "\r" { line.removeLast() }
            } else if line.last == "\r" {
                line.removeLast()
            }
            // MPD looks at the first byte: `#` and a combining mark after it (one Character
            // here) is still a comment.
            if line.isEmpty || line.unicodeScalars.first == "#" { continue }
            entries.append(String(line))
        }
        return entries
    }

    /// The `FileN` entries of a `.pls` `[playlist]` section in the order of N (entries without a
    /// file are left out). Keys are compared without ASCII case; `NumberOfEntries` is not needed,
    /// since what the `File` keys say is what the playlist holds.
    package static func plsEntries(_ text: String) -> [String] {
        plsEntries(text) { _, _, _ in }.map(\.uri)
    }

    /// The `FileN` entries of a `.pls` by N, in its order; `other` sees every other key of the
    /// section (lowercased, without its number), with its number and value.
    static func plsEntries(_ text: String, other: (Substring, Int, String) -> Void) -> [(index: Int, uri: String)] {
        var inSection = false
        var files: [Int: String] = [:]
        for rawLine in lines(of: text) {
            let line = rawLine.trimmingBlanks()
            if line.unicodeScalars.first == "[" {
                if inSection { break }
                inSection = line.lowercased() == "[playlist]"
                continue
            }
            guard inSection, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingBlanks().lowercased()
            let name = key.prefix { !$0.isNumber }
            guard let index = Int(key.dropFirst(name.count)), index > 0 else { continue }
            let value = line[line.index(after: equals)...].trimmingBlanks()
            guard !value.isEmpty else { continue }
            if name == "file" { files[index] = String(value) } else { other(name, index, String(value)) }
        }
        return files.keys.sorted().map { ($0, files[$0]!) }
    }

    /// The lines of a text split at every line feed. Swift sees `\r\n` as one character, so the
    /// split runs on Unicode scalars; a trailing `\r` stays on its line.
    static func lines(of text: String) -> [String] {
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String($0) }
    }

    /// The text of a stored playlist (MPD's `playlist_print_uri`): one entry a line, nothing
    /// else; no `#EXTM3U` header.
    package static func m3uText(_ entries: [String]) -> String {
        entries.map { $0 + "\n" }.joined()
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces, tabs and carriage returns.
    func trimmingBlanks() -> SubSequence {
        var result = self[...]
        while let first = result.first, first == " " || first == "\t" || first == "\r" { result.removeFirst() }
        while let last = result.last, last == " " || last == "\t" || last == "\r" { result.removeLast() }
        return result
    }
}
