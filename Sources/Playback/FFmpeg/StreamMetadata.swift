import CFFmpeg
import Foundation
import MediaLibrary
import MusicModel

/// What a remote stream says about itself: the container's tags (a remote file's), the
/// station's name from the `icy-name` header, and the title on air from the ICY metadata that
/// SHOUTcast and Icecast servers interleave with the audio (`StreamTitle='…';`), which
/// FFmpeg's HTTP input keeps as its latest `icy_metadata_packet`.
struct StreamMetadata {
    /// The container's tags: a remote file's, or an Ogg station's Vorbis comments, which
    /// change with each song (Icecast sends no ICY titles for Ogg).
    private var fileTags: [TagValue]
    private let name: String?
    /// Whether the server sent ICY headers: a SHOUTcast or Icecast station, which a dropped
    /// connection does not end.
    let isStation: Bool
    /// The latest metadata packet, as FFmpeg gave it.
    private var packet: String?
    private var title: String?
    /// Whether ``tags`` changed since ``take()`` last returned them.
    private var changed = true

    /// Reads what `input` said while it opened.
    init(_ input: DecoderInput) {
        fileTags = MetadataReader.streamTags(context: input.format, stream: input.stream)
        Self.clearMetadataUpdates(input)
        let headers = Self.option("icy_metadata_headers", of: input.format)
        name = headers.flatMap(Self.stationName)
        isStation = headers != nil
        poll(input)
        changed = true
    }

    /// The tags as clients see them: the title on air and the station's name first, in the
    /// order Debian's MPD 0.23 prints them for an Icecast stream, then the container's.
    var tags: [TagValue] {
        var tags: [TagValue] = []
        if let title { tags.append(TagValue(.title, title)) }
        if let name { tags.append(TagValue(.name, name)) }
        for tag in fileTags where !(tag.type == .title && title != nil) && !(tag.type == .name && name != nil) {
            tags.append(tag)
        }
        return tags
    }

    /// Looks for what changed since the last packet read from the stream: a new ICY metadata
    /// packet, or container tags the demuxer updated (an Ogg stream's next song).
    mutating func poll(_ input: DecoderInput) {
        let flags = input.format.pointee.event_flags | input.stream.pointee.event_flags
        if flags & (AVFMT_EVENT_FLAG_METADATA_UPDATED | AVSTREAM_EVENT_FLAG_METADATA_UPDATED) != 0 {
            Self.clearMetadataUpdates(input)
            let updated = MetadataReader.streamTags(context: input.format, stream: input.stream)
            if updated != fileTags {
                fileTags = updated
                changed = true
            }
        }
        guard let latest = Self.option("icy_metadata_packet", of: input.format), latest != packet else { return }
        packet = latest
        let parsed = Self.streamTitle(in: latest)
        if parsed != title {
            title = parsed
            changed = true
        }
    }

    /// The stream was connected again: its next metadata block counts, even if it repeats
    /// the last one.
    mutating func reconnected(_ input: DecoderInput) {
        packet = nil
        poll(input)
    }

    /// The tags, once after each change; `nil` when nothing changed.
    mutating func take() -> [TagValue]? {
        guard changed else { return nil }
        changed = false
        return tags
    }

    /// Forgets that the demuxer updated the metadata, so that the next update is seen.
    private static func clearMetadataUpdates(_ input: DecoderInput) {
        input.format.pointee.event_flags &= ~AVFMT_EVENT_FLAG_METADATA_UPDATED
        input.stream.pointee.event_flags &= ~AVSTREAM_EVENT_FLAG_METADATA_UPDATED
    }

    /// A string option of the HTTP input below `format`'s I/O context.
    private static func option(_ name: String, of format: UnsafeMutablePointer<AVFormatContext>) -> String? {
        guard let io = format.pointee.pb else { return nil }
        var value: UnsafeMutablePointer<UInt8>?
        guard av_opt_get(io, name, AV_OPT_SEARCH_CHILDREN, &value) >= 0, let value else { return nil }
        defer { av_free(value) }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    /// The station's name among the ICY headers FFmpeg kept (`icy-name: …` lines), as MPD
    /// reads `icy-name`.
    static func stationName(_ headers: String) -> String? {
        for line in headers.split(whereSeparator: \.isNewline) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            guard line[..<colon].lowercased() == "icy-name" else { continue }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// The title in an ICY metadata block (`StreamTitle='Artist - Title';StreamUrl='…';`), as
    /// MPD's `icy_parse_tag` reads it: the value runs to the `';` that ends it, so it may hold
    /// quotes and semicolons; an empty title is none.
    static func streamTitle(in block: String) -> String? {
        guard let start = block.range(of: "StreamTitle='") else { return nil }
        let rest = block[start.upperBound...]
        let end = rest.range(of: "';")?.lowerBound ?? rest.lastIndex(of: "'") ?? rest.endIndex
        let value = rest[..<end].trimmingCharacters(in: .whitespacesAndNewlines.union(.controlCharacters))
        return value.isEmpty ? nil : value
    }
}
