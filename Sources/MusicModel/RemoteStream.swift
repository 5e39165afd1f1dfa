/// URLs of remote streams (internet radio, files on web servers), which a queued song may have
/// instead of a library URI, as MPD's `DetachedSong` may.
package enum RemoteStream {
    /// The schemes the decoder plays, as `urlhandlers` lists them: FFmpeg's network input, with
    /// the TLS that Debian's FFmpeg links.
    package static let schemes = ["http://", "https://"]

    /// Whether `uri` is a URL (`scheme://…`) rather than a library URI or a file path: MPD's
    /// `uri_has_scheme`. `file://` URIs count; the callers look at them first.
    package static func hasScheme(_ uri: String) -> Bool {
        var matched = 0
        for byte in uri.utf8 {
            switch (matched, byte) {
            case (_, UInt8(ascii: ":")): matched = 1
            case (1, UInt8(ascii: "/")): matched = 2
            case (2, UInt8(ascii: "/")): return true
            default: matched = 0
            }
        }
        return false
    }

    /// `uri` with its scheme in lower case (`HTTP://x` → `http://x`): clients may write it in
    /// any case, as MPD's curl input takes it, but FFmpeg looks protocols up as written.
    package static func lowercasingScheme(_ uri: String) -> String {
        guard let separator = uri.firstRange(of: "://") else { return uri }
        let scheme = uri[..<separator.lowerBound]
        guard scheme.contains(where: { $0.isUppercase }) else { return uri }
        return scheme.lowercased() + uri[separator.lowerBound...]
    }

    /// Whether the decoder plays `uri`: it starts with one of ``schemes``, in any case, as
    /// MPD's input plugins compare them (`uri_supported_scheme`).
    package static func isSupported(_ uri: String) -> Bool {
        schemes.contains { scheme in
            let bytes = uri.utf8
            guard bytes.count > scheme.utf8.count else { return false }
            return zip(bytes, scheme.utf8).allSatisfy { byte, expected in
                let lowered = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
                return lowered == expected
            }
        }
    }
}

extension Song {
    /// A song for a stream URL, before anything was read from it: no tags, no duration, as MPD
    /// adds a URL to the queue without connecting.
    package init(streamURL: String, tags: [TagValue] = []) {
        self.init(uri: streamURL, lastModified: 0, added: 0, audioFormat: nil, duration: nil, tags: tags)
    }

    /// Whether the song is a remote stream rather than a file: its tags come from the stream and
    /// may change while it plays (MPD's `!DetachedSong::IsFile()`).
    package var isStream: Bool { RemoteStream.hasScheme(uri) && !uri.utf8.starts(with: "file://".utf8) }
}
