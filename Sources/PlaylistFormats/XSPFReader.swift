import CLibXML2
import Foundation

/// Reads the tracks of an XSPF playlist (`application/xspf+xml`), as MPD's xspf plugin does:
/// each `<track>` of the `<trackList>` with a `<location>`, in order, with its `<title>`,
/// `<creator>`, `<album>` and `<duration>` (milliseconds). Other elements, and the attributes
/// and namespaces of all, are ignored. A document that is not well-formed XML gives the tracks
/// it ended before the error, as MPD's expat-based plugin adds a track at its end tag.
///
/// libxml2's pull parser reads it (FoundationXML's parser leaks on every malformed document,
/// which a remote server may send at will). Nothing is fetched: no DTD, no external entity,
/// no network.
enum XSPFReader {
    /// libxml2 wants its global state set up once before threads use it (two `load`s may
    /// read playlists at once).
    private static let initialized: Void = xmlInitParser()

    /// The tracks of `bytes`.
    static func entries(in bytes: [UInt8]) -> [PlaylistEntry] {
        guard !bytes.isEmpty, bytes.count <= Int(Int32.max) else { return [] }
        _ = initialized
        // The reader reads the bytes in place, so it lives inside their scope.
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                let options = Int32(
                    XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
                guard
                    let reader = xmlReaderForMemory(characters.baseAddress, Int32(characters.count), nil, nil, options)
                else { return [] }
                defer { xmlFreeTextReader(reader) }
                return entries(of: reader)
            }
        }
    }

    /// The tracks `reader` reads.
    private static func entries(of reader: xmlTextReaderPtr) -> [PlaylistEntry] {
        var entries: [PlaylistEntry] = []
        var track: PlaylistEntry?
        // The open elements' local names, and the text of the innermost one.
        var path: [String] = []
        var text = ""
        while xmlTextReaderRead(reader) == 1 {
            let type = xmlTextReaderNodeType(reader)
            switch type {
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                let name = xmlTextReaderConstLocalName(reader).map { String(cString: $0) } ?? ""
                let empty = xmlTextReaderIsEmptyElement(reader) == 1
                path.append(name)
                text = ""
                if path == ["playlist", "trackList", "track"] { track = PlaylistEntry(uri: "") }
                if empty { close(&path, &track, &entries, text: "") }
            case Int32(XML_READER_TYPE_TEXT.rawValue), Int32(XML_READER_TYPE_CDATA.rawValue),
                Int32(XML_READER_TYPE_SIGNIFICANT_WHITESPACE.rawValue):
                if let value = xmlTextReaderConstValue(reader) { text += String(cString: value) }
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                close(&path, &track, &entries, text: text)
                text = ""
            default:
                break
            }
        }
        return entries
    }

    /// Ends the innermost element: a track's field takes its text, a track with a location
    /// joins the entries.
    private static func close(
        _ path: inout [String], _ track: inout PlaylistEntry?, _ entries: inout [PlaylistEntry], text: String
    ) {
        guard let element = path.last else { return }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if path == ["playlist", "trackList", "track"] {
            if let track, !track.uri.isEmpty { entries.append(track) }
            track = nil
        } else if path.count == 4, path.starts(with: ["playlist", "trackList", "track"]), !value.isEmpty {
            switch element {
            case "location": track?.uri = value
            case "title": track?.title = value
            case "creator": track?.artist = value
            case "album": track?.album = value
            case "duration":
                if let milliseconds = Double(value), milliseconds > 0 { track?.duration = milliseconds / 1000 }
            default: break
            }
        }
        path.removeLast()
    }
}
