import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Reads the track locations of an XSPF playlist (`application/xspf+xml`), as MPD's xspf
/// plugin does: each `<location>` of a `<track>` inside `<trackList>`, in order. Other elements,
/// and the attributes and namespaces of all, are ignored. A document that is not well-formed
/// XML gives the tracks read before the error, as MPD's expat parser leaves them.
final class XSPFReader: NSObject, XMLParserDelegate {
    private var locations: [String] = []
    /// The open elements' names.
    private var path: [String] = []
    private var text = ""

    /// The locations of `data`'s tracks.
    static func locations(in data: Data) -> [String] {
        let reader = XSPFReader()
        let parser = XMLParser(data: data)
        // An XSPF file needs no entities of its own; a remote server must not make the parser
        // expand or fetch any.
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        _ = parser.parse()
        return reader.locations
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        path.append(elementName)
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if path.last == "location" { text += string }
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        if path.last == "location" { text += String(decoding: CDATABlock, as: UTF8.self) }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        if path.suffix(4) == ["playlist", "trackList", "track", "location"] {
            let location = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !location.isEmpty { locations.append(location) }
        }
        path.removeLast()
    }
}
