/// Reads the Vorbis comments of FLAC and Ogg (Vorbis, Opus, FLAC, Speex) files itself.
///
/// FFmpeg merges repeated comments into one dictionary entry joined with ";" (`ARTIST=A`,
/// `ARTIST=B` become `A;B`), which cannot be told apart from one value that contains a
/// semicolon, and it renames some keys. MPD's native plugins keep every comment as it is, in
/// file order, so Tonearm reads the comment block directly and uses FFmpeg only as a fallback.
enum VorbisCommentScanner {
    /// The largest comment block read; bigger ones (pictures in the comments) are left to FFmpeg.
    static let maximumBlockSize = 16 << 20

    /// The comments as raw `(key, value)` pairs in file order, or nil when the file is not a
    /// FLAC or Ogg file this reader understands.
    static func comments(in file: FileBytes) -> [(key: String, value: String)]? {
        guard let head = file.readExactly(at: 0, count: 10) else { return nil }
        if head.hasASCII("OggS", at: 0) { return oggComments(in: file) }
        var offset = 0
        if head.hasASCII("ID3", at: 0) {
            // FLAC files sometimes start with an ID3v2 tag; FFmpeg and libFLAC skip it.
            let tagSize = head[6..<10].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
            offset = 10 + tagSize + (head[5] & 0x10 != 0 ? 10 : 0)
        }
        guard let magic = file.readExactly(at: offset, count: 4), magic.hasASCII("fLaC", at: 0) else { return nil }
        return flacComments(in: file, from: offset + 4)
    }

    /// Walks the FLAC metadata blocks after the `fLaC` marker to the VORBIS_COMMENT block.
    private static func flacComments(in file: FileBytes, from start: Int) -> [(key: String, value: String)]? {
        var offset = start
        while let header = file.readExactly(at: offset, count: 4) {
            let isLast = header[0] & 0x80 != 0
            let type = header[0] & 0x7F
            let length = header.bigEndian(at: 1, width: 3)
            if type == 4 {
                guard length <= maximumBlockSize, let body = file.readExactly(at: offset + 4, count: length) else {
                    return nil
                }
                return parse(body[...])
            }
            if isLast { return [] }
            offset += 4 + length
        }
        return nil
    }

    /// Assembles the first two packets of the first logical Ogg stream and parses the comment
    /// header among them.
    private static func oggComments(in file: FileBytes) -> [(key: String, value: String)]? {
        var packets: [[UInt8]] = []
        var current: [UInt8] = []
        var serial: Int?
        var offset = 0
        var total = 0
        while packets.count < 2 {
            guard let header = file.readExactly(at: offset, count: 27), header.hasASCII("OggS", at: 0) else {
                return nil
            }
            let segmentCount = Int(header[26])
            guard let lacing = file.readExactly(at: offset + 27, count: segmentCount) else { return nil }
            let bodySize = lacing.reduce(0) { $0 + Int($1) }
            let pageSerial = header.littleEndian32(at: 14)
            defer { offset += 27 + segmentCount + bodySize }
            if serial == nil { serial = pageSerial }
            guard pageSerial == serial else { continue }
            total += bodySize
            guard total <= maximumBlockSize,
                let body = file.readExactly(at: offset + 27 + segmentCount, count: bodySize)
            else { return nil }
            var position = 0
            for lace in lacing {
                current.append(contentsOf: body[position..<(position + Int(lace))])
                position += Int(lace)
                if lace < 255 {
                    packets.append(current)
                    current = []
                    if packets.count == 2 { break }
                }
            }
        }
        let identification = packets[0]
        let comment = packets[1]
        if identification.hasASCII("\u{01}vorbis", at: 0) {
            guard comment.hasASCII("\u{03}vorbis", at: 0) else { return nil }
            return parse(comment[7...])
        }
        if identification.hasASCII("OpusHead", at: 0) {
            guard comment.hasASCII("OpusTags", at: 0) else { return nil }
            return parse(comment[8...])
        }
        if identification.hasASCII("\u{7F}FLAC", at: 0) {
            // Ogg FLAC: the second packet is a metadata block, usually the comments.
            guard comment.count >= 4, comment[0] & 0x7F == 4 else { return nil }
            return parse(comment[4...])
        }
        if identification.hasASCII("Speex   ", at: 0) {
            return parse(comment[...])
        }
        return nil
    }

    /// Parses a comment block: vendor string, count, then `KEY=value` entries (little-endian
    /// lengths). Entries without `=` are skipped; pictures stored as comments are not comments.
    static func parse(_ data: ArraySlice<UInt8>) -> [(key: String, value: String)]? {
        let bytes = Array(data)
        guard bytes.count >= 8 else { return nil }
        let vendorLength = bytes.littleEndian32(at: 0)
        guard vendorLength <= bytes.count - 8 else { return nil }
        var offset = 4 + vendorLength
        let count = bytes.littleEndian32(at: offset)
        offset += 4
        var result: [(key: String, value: String)] = []
        for _ in 0..<count {
            guard offset + 4 <= bytes.count else { break }
            let length = bytes.littleEndian32(at: offset)
            offset += 4
            guard length <= bytes.count - offset else { break }
            let entry = bytes[offset..<(offset + length)]
            offset += length
            guard let equals = entry.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = String(decoding: entry[entry.startIndex..<equals], as: UTF8.self)
            guard !key.isEmpty, key.uppercased() != "METADATA_BLOCK_PICTURE" else { continue }
            result.append((key, String(decoding: entry[(equals + 1)...], as: UTF8.self)))
        }
        return result
    }
}
