/// One text-bearing frame of an ID3v2 tag, under its ID3v2.4 name.
struct ID3Frame {
    /// The four-character frame ID (`TPE1`, `TXXX`, `COMM`, `UFID`, …), v2.2 and v2.3 names mapped to v2.4.
    var id: String
    /// The TXXX description, COMM description or UFID owner; empty for plain text frames.
    var description: String
    /// The values; ID3v2.4 separates several with NUL.
    var values: [String]
}

/// Reads the text frames of an ID3v2 tag at the start of a file.
///
/// FFmpeg keeps only the first of several NUL-separated values of an ID3v2.4 frame, maps TPE3
/// to `performer` and drops UFID; MPD reads tags with libid3tag, which keeps them all. Frames
/// that hold no text (pictures, private data) are skipped without being read.
enum ID3v2Scanner {
    /// The largest tag read whole when it must be de-unsynchronised first.
    private static let maximumTagSize = 16 << 20
    /// The largest single frame read.
    private static let maximumFrameSize = 1 << 20

    /// Where a tag at the start of `file` ends (the offset of the audio data), or 0 without a tag.
    static func tagEnd(in file: FileBytes) -> Int {
        guard let header = file.readExactly(at: 0, count: 10), header.hasASCII("ID3", at: 0) else { return 0 }
        return 10 + syncsafe(header, at: 6) + (header[5] & 0x10 != 0 ? 10 : 0)
    }

    /// The frames of the tag at the start of `file`, in file order, or nil when there is none.
    static func frames(in file: FileBytes) -> [ID3Frame]? {
        guard let header = file.readExactly(at: 0, count: 10), header.hasASCII("ID3", at: 0) else { return nil }
        let version = Int(header[3])
        guard (2...4).contains(version), header[4] != 0xFF else { return nil }
        let flags = header[5]
        let tagSize = syncsafe(header, at: 6)
        // Reads bytes of the tag body (after the 10-byte header).
        let fetch: (Int, Int) -> [UInt8]?
        if flags & 0x80 != 0 && version < 4 {
            // v2.2/v2.3 unsynchronise the whole tag, and frame sizes count the restored bytes.
            guard tagSize <= maximumTagSize else { return nil }
            let body = removeUnsynchronisation(file.read(at: 10, count: tagSize)[...])
            fetch = { offset, count in
                offset + count <= body.count ? Array(body[offset..<(offset + count)]) : nil
            }
        } else {
            fetch = { offset, count in offset + count <= tagSize ? file.readExactly(at: 10 + offset, count: count) : nil
            }
        }
        var offset = 0
        if flags & 0x40 != 0 && version >= 3, let extended = fetch(0, 4) {
            offset = version == 3 ? 4 + extended.bigEndian(at: 0, width: 4) : syncsafe(extended, at: 0)
        }
        var frames: [ID3Frame] = []
        let headerSize = version == 2 ? 6 : 10
        while let frameHeader = fetch(offset, headerSize), frameHeader[0] != 0 {
            let idLength = version == 2 ? 3 : 4
            let rawID = String(decoding: frameHeader[0..<idLength], as: UTF8.self)
            let size =
                switch version {
                case 2: frameHeader.bigEndian(at: 3, width: 3)
                case 3: frameHeader.bigEndian(at: 4, width: 4)
                default: syncsafe(frameHeader, at: 4)
                }
            let bodyOffset = offset + headerSize
            offset = bodyOffset + size
            let id = version == 2 ? (v22Names[rawID] ?? rawID) : rawID
            guard id.hasPrefix("T") || id == "COMM" || id == "UFID", size > 0, size <= maximumFrameSize,
                var body = fetch(bodyOffset, size)
            else { continue }
            if version >= 3 {
                let formatFlags = frameHeader[9]
                let compressed = version == 3 ? formatFlags & 0x80 != 0 : formatFlags & 0x08 != 0
                let encrypted = version == 3 ? formatFlags & 0x40 != 0 : formatFlags & 0x04 != 0
                if compressed || encrypted { continue }
                var skip = 0
                if version == 3 && formatFlags & 0x20 != 0 { skip += 1 }
                if version == 4 && formatFlags & 0x40 != 0 { skip += 1 }
                if version == 4 && formatFlags & 0x01 != 0 { skip += 4 }
                guard skip < body.count else { continue }
                body.removeFirst(skip)
                if version == 4 && (formatFlags & 0x02 != 0 || flags & 0x80 != 0) {
                    body = removeUnsynchronisation(body[...])
                }
            }
            if let frame = decodeFrame(id: id, body: body) { frames.append(frame) }
        }
        return mergeV23Dates(frames)
    }

    /// Decodes a text, TXXX, COMM or UFID frame body.
    private static func decodeFrame(id: String, body: [UInt8]) -> ID3Frame? {
        if id == "UFID" {
            guard let end = body.firstIndex(of: 0) else { return nil }
            let owner = String(decoding: body[..<end], as: UTF8.self)
            return ID3Frame(id: id, description: owner, values: [String(decoding: body[(end + 1)...], as: UTF8.self)])
        }
        guard let encoding = body.first else { return nil }
        var strings: [String]
        if id == "COMM" {
            // Encoding, three-byte language, then the description and the text.
            guard body.count > 4 else { return nil }
            strings = decodeStrings(body[4...], encoding: encoding)
            guard strings.count >= 2 else { return nil }
            return ID3Frame(id: id, description: strings[0], values: [strings[1...].joined(separator: "\n")])
        }
        strings = decodeStrings(body[1...], encoding: encoding)
        if id == "TXXX" {
            guard !strings.isEmpty else { return nil }
            let description = strings.removeFirst()
            return ID3Frame(id: id, description: description, values: strings)
        }
        return ID3Frame(id: id, description: "", values: strings)
    }

    /// Splits a string list at its terminators and decodes each string.
    static func decodeStrings(_ bytes: ArraySlice<UInt8>, encoding: UInt8) -> [String] {
        var strings: [String] = []
        switch encoding {
        case 1, 2:
            var units: [UInt16] = []
            var bigEndian = encoding == 2
            var index = bytes.startIndex
            var atStart = true
            while index + 1 < bytes.endIndex {
                let first = bytes[index]
                let second = bytes[index + 1]
                index += 2
                if atStart && encoding == 1 && (first, second) == (0xFF, 0xFE) {
                    bigEndian = false
                    atStart = false
                    continue
                }
                if atStart && encoding == 1 && (first, second) == (0xFE, 0xFF) {
                    bigEndian = true
                    atStart = false
                    continue
                }
                atStart = false
                let unit = bigEndian ? UInt16(first) << 8 | UInt16(second) : UInt16(second) << 8 | UInt16(first)
                if unit == 0 {
                    strings.append(String(decoding: units, as: UTF16.self))
                    units = []
                    atStart = true
                } else {
                    units.append(unit)
                }
            }
            if !units.isEmpty { strings.append(String(decoding: units, as: UTF16.self)) }
        default:
            for piece in bytes.split(separator: 0, omittingEmptySubsequences: false) {
                strings.append(
                    encoding == 3
                        ? String(decoding: piece, as: UTF8.self)
                        : String(String.UnicodeScalarView(piece.map { Unicode.Scalar($0) })))
            }
            // A trailing terminator is not an empty last value.
            if bytes.last == 0, strings.last?.isEmpty == true { strings.removeLast() }
        }
        return strings
    }

    /// ID3v2.3 dates: TYER (year) plus TDAT (`DDMM`) become a v2.4 TDRC, as libid3tag does;
    /// TORY becomes TDOR.
    private static func mergeV23Dates(_ frames: [ID3Frame]) -> [ID3Frame] {
        let hasTDRC = frames.contains { $0.id == "TDRC" }
        let dayMonth = frames.first { $0.id == "TDAT" }?.values.first.map { Array($0.utf8) }
        return frames.compactMap { frame in
            var frame = frame
            switch frame.id {
            case "TYER":
                guard !hasTDRC else { return nil }
                frame.id = "TDRC"
                if let year = frame.values.first, year.count == 4, let dayMonth, dayMonth.count == 4,
                    dayMonth.allSatisfy({ (0x30...0x39).contains($0) })
                {
                    let text = String(decoding: dayMonth, as: UTF8.self)
                    frame.values = ["\(year)-\(text.suffix(2))-\(text.prefix(2))"]
                }
            case "TORY": frame.id = "TDOR"
            case "TDAT": return nil
            default: break
            }
            return frame
        }
    }

    /// Restores bytes after unsynchronisation: every `FF 00` becomes `FF`.
    private static func removeUnsynchronisation(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var previous: UInt8 = 0
        for byte in bytes {
            if !(previous == 0xFF && byte == 0) { result.append(byte) }
            previous = byte
        }
        return result
    }

    private static func syncsafe(_ bytes: [UInt8], at offset: Int) -> Int {
        bytes[offset..<(offset + 4)].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
    }

    /// ID3v2.2 three-letter frame IDs of text frames, by their v2.4 names.
    private static let v22Names: [String: String] = [
        "TT1": "TIT1", "TT2": "TIT2", "TT3": "TIT3", "TP1": "TPE1", "TP2": "TPE2", "TP3": "TPE3",
        "TP4": "TPE4", "TAL": "TALB", "TRK": "TRCK", "TPA": "TPOS", "TYE": "TYER", "TDA": "TDAT",
        "TOR": "TORY", "TCO": "TCON", "TCM": "TCOM", "TPB": "TPUB", "TXX": "TXXX", "COM": "COMM",
        "UFI": "UFID", "TS2": "TSO2", "TSA": "TSOA", "TSP": "TSOP", "TSC": "TSOC", "TST": "TSOT",
    ]
}
