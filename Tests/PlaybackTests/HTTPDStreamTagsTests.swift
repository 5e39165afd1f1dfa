import MusicModel
import Testing

@testable import Playback

/// What the `httpd` output does with songs' tags and its Ogg encoders: MPD's option rules for
/// `vorbis` and `opus`, ICY metadata blocks byte for byte, a new Ogg stream's header going out
/// in the stream and to listeners who join later, and `always_on`. The sockets are tested end
/// to end in Tests/Integration/test_httpd_tags.py.
@Suite struct HTTPDStreamTagsTests {
    /// Publishes `bytes` as the output thread does.
    func append(_ bytes: [UInt8], to state: inout HTTPStreamState) {
        bytes.withUnsafeBytes { state.ring.append($0) }
    }

    func message(_ settings: [String: String]) -> String? { HTTPDOutputTests.message(settings) }

    @Test func vorbisAndOpusOptionsAreReadAsMPDReadsThem() throws {
        #expect(try StreamEncoding(settings: [:]) == .vorbis(.quality(3)))
        #expect(try StreamEncoding(settings: ["encoder": "vorbis", "bitrate": "96"]) == .vorbis(.bitrate(96)))
        #expect(
            message(["encoder": "vorbis", "quality": "11"]) == "quality \"11\" is not a number in the range -1 to 10")
        #expect(
            message(["encoder": "vorbis", "quality": "3", "bitrate": "9"]) == "quality and bitrate are both defined")
        var opus = StreamEncoding.OpusOptions()
        #expect(try StreamEncoding(settings: ["encoder": "opus"]) == .opus(opus))
        opus.bitrate = 96000
        opus.complexity = 5
        opus.vbr = "constrained"
        opus.packetLoss = 10
        opus.chaining = true
        let configured = try StreamEncoding(settings: [
            "encoder": "opus", "bitrate": "96000", "complexity": "5", "vbr": "constrained", "packet_loss": "10",
            "opustags": "yes", "signal": "music",
        ])
        #expect(configured == .opus(opus))
        #expect(message(["encoder": "opus", "bitrate": "499"]) == "Invalid bit rate")
        #expect(message(["encoder": "opus", "complexity": "11"]) == "Invalid complexity")
        #expect(message(["encoder": "opus", "signal": "noise"]) == "Invalid signal")
        #expect(message(["encoder": "opus", "vbr": "maybe"]) == "Invalid vbr")
        #expect(message(["encoder": "opus", "packet_loss": "101"]) == "Invalid packet loss")
        // Vorbis always chains; Opus only with `opustags`, else it gets ICY metadata as MP3 does.
        #expect(StreamEncoding.vorbis(.quality(3)).carriesTags)
        #expect(!StreamEncoding.opus(.init()).carriesTags && configured.carriesTags)
        #expect(!StreamEncoding.lame(.bitrate(128)).carriesTags)
        #expect(configured.contentType == "audio/ogg")
    }

    @Test func opusTakesFortyEightKilohertzAndMonoForMoreThanTwoChannels() {
        let opus = StreamEncoding.opus(.init())
        let surround = PCMFormat(sampleRate: 44100, sample: .s24, channels: 6)
        #expect(opus.format(for: surround) == PCMFormat(sampleRate: 44100, sample: .float, channels: 6))
        #expect(opus.encoderFormat(for: surround) == PCMFormat(sampleRate: 48000, sample: .s24, channels: 1))
        #expect(opus.format(for: .cd) == .cd)
        #expect(StreamEncoding.vorbis(.quality(3)).format(for: .cd).sample == .float)
    }

    @Test func icyBlockIsMPDs() {
        let tags = [
            TagValue(.title, "Night"), TagValue(.artist, "Ann"), TagValue(.album, "Alpha"), TagValue(.artist, "Bo"),
        ]
        let block = ICYMetadata.block(for: tags)
        // "StreamTitle='Alpha - Ann - Night';StreamUrl='';" is 47 bytes; with MPD's 15 spaces
        // 62, so 3 units of 16: the text and one space.
        let text = "StreamTitle='Alpha - Ann - Night';StreamUrl='';"
        #expect(block == [3] + Array(text.utf8) + [0x20])
        let untitled = ICYMetadata.block(for: [])
        #expect(untitled == [2] + Array("StreamTitle='';StreamUrl='';    ".utf8))
        // MPD cuts the title to its buffer (3647 bytes), which always fits 255 units:
        // 13 + 3647 + 15 + 15 bytes make 230 units.
        let long = ICYMetadata.block(for: [TagValue(.title, String(repeating: "x", count: 5000))])
        #expect(long?.count == 1 + 230 * 16 && long?.first == 230)
    }

    @Test func aNewOggStreamGoesOutInTheStreamAndToLaterListeners() {
        var state = HTTPStreamState(capacity: 64, limit: 32)
        defer { state.ring.deallocate() }
        var early = ListenerCursor()
        var late = ListenerCursor()
        var got: [UInt8] = []
        var gotLate: [UInt8] = []
        state.begin(header: [0xA1])
        _ = state.pull(&early, maxCount: 100) { got.append(contentsOf: $0) }
        append([1, 2], to: &state)
        state.replaceHeader([0xB1, 0xB2])
        append([3], to: &state)
        _ = state.pull(&early, maxCount: 100) { got.append(contentsOf: $0) }
        #expect(got == [0xA1, 1, 2, 0xB1, 0xB2, 3])
        _ = state.pull(&late, maxCount: 100) { gotLate.append(contentsOf: $0) }
        append([4], to: &state)
        _ = state.pull(&late, maxCount: 100) { gotLate.append(contentsOf: $0) }
        #expect(gotLate == [0xB1, 0xB2, 4])
    }

    @Test func aListenerWaitingBeforeAChainedStreamGetsItsHeaderOnce() {
        var state = HTTPStreamState(capacity: 64, limit: 32)
        defer { state.ring.deallocate() }
        var waiting = ListenerCursor()
        var got: [UInt8] = []
        #expect(state.pull(&waiting, maxCount: 100) { got.append(contentsOf: $0) } == .idle)
        state.begin(header: [])
        state.replaceHeader([0xC1])  // the first song's tags, before its first packet
        append([5, 6], to: &state)
        while case .copied = state.pull(&waiting, maxCount: 100, into: { got.append(contentsOf: $0) }) {}
        #expect(got == [0xC1, 5, 6])
    }

    @Test func alwaysOnKeepsTheDevicePausedThroughStop() {
        var device = DeviceLifecycle()
        device.keepsOpen = true
        _ = device.play(.cd)
        device.opened(.cd, actual: .cd)
        #expect(device.flush(stopped: true) == .cancelAndPause)
        #expect(device.isPaused && device.actualFormat == .cd)
        #expect(device.play(.cd) == DeviceLifecycle.Action.none)
        #expect(!device.isPaused)
        #expect(device.release() == .close)
        var plain = DeviceLifecycle()
        _ = plain.play(.cd)
        plain.opened(.cd, actual: .cd)
        #expect(plain.flush(stopped: true) == .cancel(close: true) && !plain.isPaused)
    }

    /// FFmpeg's libopus wrapper refuses more than 256 kbit/s a channel, where MPD's libopus
    /// clamps: `max`, and the highest rates on a mono song, must still open.
    @Test func opusOpensAtItsHighestBitrates() throws {
        let mono = PCMFormat(sampleRate: 44100, sample: .float, channels: 1)
        var options = StreamEncoding.OpusOptions()
        options.maximumBitrate = true
        _ = try StreamEncoder(.opus(options), format: .cd)
        _ = try StreamEncoder(.opus(options), format: mono)
        options = StreamEncoding.OpusOptions()
        options.bitrate = 512_000
        _ = try StreamEncoder(.opus(options), format: mono)
    }

    /// The comment header is written as MPD writes it: every value its own comment, MPD's tag
    /// names in upper case, nothing renamed or added.
    @Test func oggCommentsAreMPDs() throws {
        let tags = [
            TagValue(.artist, "Ann"), TagValue(.artist, "Bob"), TagValue(.track, "3"), TagValue(.comment, "x"),
            TagValue(.title, "Night"),
        ]
        for encoding in [StreamEncoding.vorbis(.quality(3)), .opus(.init())] {
            let header = try StreamEncoder(encoding, format: .cd, tags: tags).header
            let expected = ["ARTIST=Ann", "ARTIST=Bob", "TRACK=3", "COMMENT=x", "TITLE=Night"]
            if case .opus = encoding {
                #expect(header.opusComments == expected)
            } else {
                #expect(header.vorbisComments == expected)
            }
        }
        #expect(
            OggPager.comments(magic: Array("OpusTags".utf8), vendor: "v", [TagValue(.title, "é")], framing: false)
                == Array("OpusTags".utf8) + [1, 0, 0, 0] + Array("v".utf8) + [1, 0, 0, 0, 8, 0, 0, 0]
                + Array("TITLE=é".utf8))
    }

    @Test func xiphLacedHeadersAreSplit() {
        let data: [UInt8] = [2, 3, 255, 1] + [1, 1, 1] + [UInt8](repeating: 2, count: 256) + [3, 3]
        let packets = data.withUnsafeBufferPointer { OggPager.xiphPackets($0) }
        #expect(packets?.map(\.count) == [3, 256, 2])
        #expect([UInt8]([0, 5]).withUnsafeBufferPointer { OggPager.xiphPackets($0) } == [[5]])
        #expect([UInt8]([1, 9, 1]).withUnsafeBufferPointer { OggPager.xiphPackets($0) } == nil)
    }

    @Test func vorbisChainsAStreamWithTheSongsTags() throws {
        let encoder = try StreamEncoder(
            .vorbis(.quality(3)), format: PCMFormat(sampleRate: 44100, sample: .float, channels: 2))
        let first = encoder.header
        #expect(first.starts(with: Array("OggS".utf8)))
        var out: [UInt8] = []
        let silence = [Float](repeating: 0, count: 44100 * 2)
        try silence.withUnsafeBytes { bytes in try encoder.encode(bytes) { out.append(contentsOf: $0) } }
        try encoder.chain(tags: [TagValue(.title, "Night"), TagValue(.artist, "Ann")]) { out.append(contentsOf: $0) }
        let second = encoder.header
        #expect(second.starts(with: Array("OggS".utf8)) && second[14..<18] != first[14..<18])  // a new serial
        #expect(second.vorbisComments == ["TITLE=Night", "ARTIST=Ann"])
        #expect(first.vorbisComments == [])
        // The old stream ended: its last page says so (header type 4, end of stream), at the
        // granule position of the second of audio it carried.
        #expect(out.lastPage?.flags == 4 && out.lastPage?.granule == 44100)
    }
}

extension [UInt8] {
    /// Whether `needle` occurs in the bytes.
    fileprivate func windowContains(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }

    /// The flags and granule position of the last Ogg page in the bytes.
    fileprivate var lastPage: (flags: UInt8, granule: Int64)? {
        let magic = Array("OggS".utf8)
        guard count >= 27, let start = (0...(count - 4)).last(where: { Array(self[$0..<($0 + 4)]) == magic })
        else { return nil }
        let granule = (0..<8).reduce(Int64(0)) { $0 | Int64(self[start + 6 + $1]) << (8 * $1) }
        return (self[start + 5], granule)
    }

    /// The comments of the Vorbis comment header in these header pages, in order.
    fileprivate var vorbisComments: [String]? { comments(after: [3] + Array("vorbis".utf8)) }

    /// The comments of the OpusTags header in these header pages, in order.
    fileprivate var opusComments: [String]? { comments(after: Array("OpusTags".utf8)) }

    /// The comment list that follows `magic` (a vendor string, a count, then each comment with
    /// its length, all lengths 32-bit little-endian), read from a header page's body.
    private func comments(after magic: [UInt8]) -> [String]? {
        guard let found = (0...(count - magic.count)).first(where: { Array(self[$0..<($0 + magic.count)]) == magic })
        else { return nil }
        var at = found + magic.count
        func read32() -> Int {
            defer { at += 4 }
            return (0..<4).reduce(0) { $0 | Int(self[at + $1]) << (8 * $1) }
        }
        at += read32()
        return (0..<read32()).map { _ in
            let length = read32()
            defer { at += length }
            return String(decoding: self[at..<(at + length)], as: UTF8.self)
        }
    }
}
