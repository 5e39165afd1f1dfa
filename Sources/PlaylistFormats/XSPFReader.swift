import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads the tracks of an XSPF playlist (`application/xspf+xml`), as MPD's xspf plugin does:
/// each `<track>` of the `<trackList>` with a `<location>`, in order, with its `<title>`,
/// `<creator>`, `<album>` and `<duration>` (milliseconds). Other elements, and the attributes
/// and namespaces of all, are ignored. A document that is not well-formed XML gives the tracks
/// read before the error, as MPD's expat parser leaves them.
final class XSPFReader: NSObject, XMLParserDelegate {
    private var entries: [PlaylistEntry] = []
    private var track: PlaylistEntry?
    /// The open elements' names.
    private var path: [String] = []
    private var text = ""

    /// The tracks of `data`.
    static func entries(in data: Data) -> [PlaylistEntry] {
        let reader = XSPFReader()
        let parser = XMLParser(data: data)
        // An XSPF file needs no entities of its own; a remote server must not make the parser
        // expand or fetch any.
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        _ = parser.parse()
        return reader.entries
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        path.append(elementName)
        text = ""
        if isTrack { track = PlaylistEntry(uri: "") }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        text = ""
        if isTrack {
            if let track, !track.uri.isEmpty { entries.append(track) }
            track = nil
        } else if path.count == 4, isInTrack, !value.isEmpty {
            switch elementName {
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

    /// Whether the innermost open element is a track of the track list.
    private var isTrack: Bool { path.count == 3 && isInTrack }

    private var isInTrack: Bool { path.starts(with: ["playlist", "trackList", "track"]) }
}
