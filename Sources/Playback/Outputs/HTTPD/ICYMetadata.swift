package import MusicModel

/// What an `httpd` output tells listeners that ask for ICY metadata (`Icy-MetaData: 1`): the
/// output's `name`, `genre` and `website`, and how many bytes of audio come between two
/// metadata blocks.
package struct ICYStationInfo: Sendable, Equatable {
    /// `icy-name`: the output's `name` option (MPD's default is "Set name in config").
    package var name: String
    /// `icy-genre`: the `genre` option.
    package var genre: String
    /// `icy-url`: the `website` option.
    package var website: String
    /// `icy-metaint`: MPD's fixed 8192 bytes.
    package var interval = 8192

    /// The station as the options describe it.
    package init(name: String, genre: String, website: String) {
        self.name = name
        self.genre = genre
        self.website = website
    }
}

/// ICY metadata blocks as MPD's `httpd` output makes them (`IcyMetaDataServer.cxx`).
package enum ICYMetadata {
    /// The block for a song with `tags`: a length byte (in units of 16 bytes), then
    /// `StreamTitle='…';StreamUrl='';` padded with spaces to a multiple of 16. The title is the
    /// album, the artist and the title that are present, joined with " - ", in that order, as
    /// MPD joins them. Nil when the block would exceed the 4080 bytes a length byte can say
    /// (MPD then sends none).
    package static func block(for tags: [TagValue]) -> [UInt8]? {
        let parts = [TagType.album, .artist, .title].compactMap { type in tags.first { $0.type == type }?.value }
        // MPD copies the title into a buffer of (1 + 255 − 28) × 16 bytes, its NUL included.
        let title = Array(parts.joined(separator: " - ").utf8).prefix((1 + 255 - 28) * 16 - 1)
        let body =
            Array("StreamTitle='".utf8) + title + Array("';StreamUrl='';".utf8) + [UInt8](repeating: 0x20, count: 15)
        let units = body.count / 16
        guard units <= 255 else { return nil }
        return [UInt8(units)] + body.prefix(units * 16)
    }
}
