/// The header of the first MPEG audio frame of an MP3/MP2 file.
///
/// libavformat's MP3 demuxer leaves the sample rate and channel count unset until
/// `avformat_find_stream_info` decodes frames, which halves the scan rate; four header bytes
/// tell the same. The bit rate also gives the duration of files without a Xing/VBRI header.
struct MPEGAudioHeader: Equatable {
    /// Samples per second.
    var sampleRate: Int
    /// 1 for mono, else 2.
    var channels: Int
    /// Bits per second of this frame.
    var bitRate: Int
    /// Where the frame starts in the file.
    var offset: Int

    /// Finds the first valid frame header at or after `start`, searching at most 64 KiB of junk,
    /// and accepting it only when another frame header follows where this frame ends.
    static func find(in file: FileBytes, from start: Int) -> MPEGAudioHeader? {
        // The frame nearly always follows the tag at once: look at 4 KiB before 64 KiB.
        find(in: file.read(at: start, count: 4 << 10), from: start)
            ?? find(in: file.read(at: start, count: 64 << 10), from: start)
    }

    private static func find(in window: [UInt8], from start: Int) -> MPEGAudioHeader? {
        var index = 0
        while index + 4 <= window.count {
            defer { index += 1 }
            guard window[index] == 0xFF, window[index + 1] & 0xE0 == 0xE0,
                let (header, length) = parse(window[index..<(index + 4)], offset: start + index)
            else { continue }
            let next = index + length
            if next + 4 <= window.count {
                guard parse(window[next..<(next + 4)], offset: 0) != nil else { continue }
            }
            return header
        }
        return nil
    }

    /// Decodes four header bytes: the header and the frame length in bytes, or nil if invalid.
    private static func parse(_ bytes: ArraySlice<UInt8>, offset: Int) -> (MPEGAudioHeader, Int)? {
        let b = Array(bytes)
        guard b[0] == 0xFF, b[1] & 0xE0 == 0xE0 else { return nil }
        let versionBits = Int(b[1] >> 3 & 3)  // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
        let layerBits = Int(b[1] >> 1 & 3)  // 3: layer I, 2: layer II, 1: layer III
        let bitRateIndex = Int(b[2] >> 4)
        let rateIndex = Int(b[2] >> 2 & 3)
        guard versionBits != 1, layerBits != 0, bitRateIndex != 0, bitRateIndex != 15, rateIndex != 3 else {
            return nil
        }
        let isVersion1 = versionBits == 3
        let sampleRate = [44100, 48000, 32000][rateIndex] >> (isVersion1 ? 0 : versionBits == 2 ? 1 : 2)
        let table: [Int] =
            switch (isVersion1, layerBits) {
            case (true, 3): [32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448]
            case (true, 2): [32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384]
            case (true, _): [32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
            case (false, 3): [32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256]
            case (false, _): [8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
            }
        let bitRate = table[bitRateIndex - 1] * 1000
        let padding = Int(b[2] >> 1 & 1)
        let length =
            switch layerBits {
            case 3: (12 * bitRate / sampleRate + padding) * 4
            case 1 where !isVersion1: 72 * bitRate / sampleRate + padding
            default: 144 * bitRate / sampleRate + padding
            }
        guard length > 4 else { return nil }
        let channels = b[3] >> 6 == 3 ? 1 : 2
        return (MPEGAudioHeader(sampleRate: sampleRate, channels: channels, bitRate: bitRate, offset: offset), length)
    }
}

/// The ID3v1 genre names (with the Winamp extensions) that numeric ID3v2 TCON values stand for.
enum ID3Genres {
    /// Resolves `17`, `(17)` or `(17)Refinement` as libid3tag does; other text is returned as is.
    static func resolve(_ value: String) -> String {
        var text = Substring(value)
        if text.hasPrefix("("), let close = text.firstIndex(of: ")") {
            let inner = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty { return String(rest) }
            if inner == "RX" { return "Remix" }
            if inner == "CR" { return "Cover" }
            text = inner
        }
        guard !text.isEmpty, text.allSatisfy(\.isASCII), let number = Int(text), names.indices.contains(number) else {
            return value
        }
        return names[number]
    }

    private static let names: [String] = """
        Blues|Classic Rock|Country|Dance|Disco|Funk|Grunge|Hip-Hop|Jazz|Metal|New Age|Oldies|Other|Pop|R&B|\
        Rap|Reggae|Rock|Techno|Industrial|Alternative|Ska|Death Metal|Pranks|Soundtrack|Euro-Techno|Ambient|\
        Trip-Hop|Vocal|Jazz+Funk|Fusion|Trance|Classical|Instrumental|Acid|House|Game|Sound Clip|Gospel|Noise|\
        AlternRock|Bass|Soul|Punk|Space|Meditative|Instrumental Pop|Instrumental Rock|Ethnic|Gothic|Darkwave|\
        Techno-Industrial|Electronic|Pop-Folk|Eurodance|Dream|Southern Rock|Comedy|Cult|Gangsta|Top 40|\
        Christian Rap|Pop/Funk|Jungle|Native American|Cabaret|New Wave|Psychedelic|Rave|Showtunes|Trailer|\
        Lo-Fi|Tribal|Acid Punk|Acid Jazz|Polka|Retro|Musical|Rock & Roll|Hard Rock|Folk|Folk-Rock|\
        National Folk|Swing|Fast-Fusion|Bebob|Latin|Revival|Celtic|Bluegrass|Avantgarde|Gothic Rock|\
        Progressive Rock|Psychedelic Rock|Symphonic Rock|Slow Rock|Big Band|Chorus|Easy Listening|Acoustic|\
        Humour|Speech|Chanson|Opera|Chamber Music|Sonata|Symphony|Booty Bass|Primus|Porn Groove|Satire|\
        Slow Jam|Club|Tango|Samba|Folklore|Ballad|Power Ballad|Rhythmic Soul|Freestyle|Duet|Punk Rock|\
        Drum Solo|A Cappella|Euro-House|Dance Hall|Goa|Drum & Bass|Club-House|Hardcore|Terror|Indie|BritPop|\
        Negerpunk|Polsk Punk|Beat|Christian Gangsta Rap|Heavy Metal|Black Metal|Crossover|\
        Contemporary Christian|Christian Rock|Merengue|Salsa|Thrash Metal|Anime|JPop|Synthpop
        """.split(separator: "|").map(String.init)
}
