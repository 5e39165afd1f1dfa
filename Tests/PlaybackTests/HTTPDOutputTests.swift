import Testing

@testable import Playback

/// The `httpd` output's pure parts: MPD's WAV header, the encoder options as MPD reads them,
/// the ring every listener reads at its own position, and the rules for joining, falling
/// behind and the end of a stream. The sockets and the encoders are tested end to end in
/// Tests/Integration/test_httpd_output.py.
@Suite struct HTTPDOutputTests {
    /// A ring of `capacity` with `limit`, freed after `body`.
    static func withRing(capacity: Int, limit: Int, _ body: (inout EncodedRing) -> Void) {
        var ring = EncodedRing(capacity: capacity, limit: limit)
        body(&ring)
        ring.deallocate()
    }

    /// Appends `bytes` to `ring`.
    static func append(_ bytes: [UInt8], to ring: inout EncodedRing) {
        bytes.withUnsafeBytes { ring.append($0) }
    }

    /// What `ring` hands over from `position`, at most `max` bytes.
    static func read(_ ring: EncodedRing, from position: UInt64, max: Int = 1 << 20) -> (
        [UInt8], EncodedRing.ReadResult
    ) {
        var bytes: [UInt8] = []
        let result = ring.read(from: position, maxCount: max) { bytes.append(contentsOf: $0) }
        return (bytes, result)
    }

    /// The configuration error for an `httpd` block with `settings`, nil if there is none.
    static func message(_ settings: [String: String]) -> String? {
        do {
            _ = try StreamEncoding(settings: settings)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func waveHeaderIsMPDs() {
        let header = WaveHeader.bytes(channels: 2, bits: 16, bytesPerSample: 2, sampleRate: 44100)
        // What MPD 0.23's wave encoder writes for 44100:16:2 (fake data length 0x0FFFFFFF).
        let expected: [UInt8] = [
            0x52, 0x49, 0x46, 0x46, 0x23, 0x00, 0x00, 0x10, 0x57, 0x41, 0x56, 0x45,
            0x66, 0x6D, 0x74, 0x20, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00,
            0x44, 0xAC, 0x00, 0x00, 0x10, 0xB1, 0x02, 0x00, 0x04, 0x00, 0x10, 0x00,
            0x64, 0x61, 0x74, 0x61, 0xFF, 0xFF, 0xFF, 0x0F,
        ]
        #expect(header == expected)
        let wide = WaveHeader.bytes(channels: 2, bits: 24, bytesPerSample: 3, sampleRate: 96000)
        // 96000 × 6 bytes a second (0x08CA00), blocks of 6 bytes, 24 bits.
        #expect(wide[28..<36] == [0x00, 0xCA, 0x08, 0x00, 0x06, 0x00, 0x18, 0x00])
    }

    @Test func encoderOptionsAreReadAsMPDReadsThem() throws {
        #expect(try StreamEncoding(settings: ["encoder": "wave"]) == .wave)
        #expect(try StreamEncoding(settings: ["encoder": "flac"]) == .flac(compression: 5))
        #expect(try StreamEncoding(settings: ["encoder": "lame", "bitrate": "128"]) == .lame(.bitrate(128)))
        #expect(try StreamEncoding(settings: ["encoder": "lame", "quality": "4.5"]) == .lame(.quality(4.5)))
        #expect(Self.message(["encoder": "ogg"]) == "No such encoder: ogg")
        #expect(
            Self.message(["encoder": "shine"])?.hasPrefix("The \"shine\" encoder is not supported by Tonearm") == true)
        #expect(Self.message(["encoder": "lame"]) == "neither bitrate nor quality defined")
        #expect(
            Self.message(["encoder": "lame", "bitrate": "1", "quality": "1"]) == "quality and bitrate are both defined")
        #expect(
            Self.message(["encoder": "lame", "quality": "11"]) == "quality \"11\" is not a number in the range -1 to 10"
        )
        #expect(Self.message(["encoder": "lame", "bitrate": "-5"]) == "bitrate should be a positive integer")
        #expect(
            Self.message(["encoder": "flac", "compression": "9"]) == "compression: \"9\" is not a number from 0 to 8")
    }

    @Test func encodersChooseMPDsFormats() {
        let hiRes = PCMFormat(sampleRate: 96000, sample: .float, channels: 6)
        #expect(StreamEncoding.wave.format(for: hiRes) == PCMFormat(sampleRate: 96000, sample: .s16, channels: 6))
        #expect(
            StreamEncoding.flac(compression: 5).format(for: hiRes)
                == PCMFormat(sampleRate: 96000, sample: .s24, channels: 6))
        // The lossy encoders take the source's rate and channels from the pipeline (which only
        // converts sample types) and resample to what the codec takes themselves.
        let lame = StreamEncoding.lame(.bitrate(128))
        #expect(lame.format(for: hiRes) == PCMFormat(sampleRate: 96000, sample: .s16, channels: 6))
        #expect(
            lame.encoderFormat(for: lame.format(for: hiRes)) == PCMFormat(sampleRate: 44100, sample: .s16, channels: 2))
        #expect(lame.format(for: .cd) == .cd && lame.encoderFormat(for: .cd) == .cd)
        #expect(StreamEncoding.wave.contentType == "audio/wav")
    }

    @Test func ringHandsOverAcrossTheWrap() {
        Self.withRing(capacity: 8, limit: 6) { ring in
            Self.append([1, 2, 3, 4, 5], to: &ring)
            #expect(Self.read(ring, from: 0) == ([1, 2, 3, 4, 5], .copied(5)))
            Self.append([6, 7, 8, 9, 10], to: &ring)  // wraps: 9 and 10 at the start
            #expect(Self.read(ring, from: 5) == ([6, 7, 8, 9, 10], .copied(5)))
            #expect(Self.read(ring, from: 5, max: 2) == ([6, 7], .copied(2)))
            #expect(Self.read(ring, from: 10) == ([], .copied(0)))
        }
    }

    @Test func aListenerTooFarBehindIsToldSo() {
        Self.withRing(capacity: 8, limit: 6) { ring in
            Self.append([1, 2, 3, 4, 5, 6, 7], to: &ring)
            #expect(Self.read(ring, from: 1).1 == .copied(6))
            #expect(Self.read(ring, from: 0).1 == .tooFarBehind)
        }
    }

    @Test func aNewListenerGetsTheHeaderThenOnlyNewPackets() {
        var state = HTTPStreamState(capacity: 64, limit: 32)
        defer { state.ring.deallocate() }
        var cursor = ListenerCursor()
        var got: [UInt8] = []
        func pull() -> PullResult { state.pull(&cursor, maxCount: 100) { got.append(contentsOf: $0) } }
        state.begin(header: [0xAA, 0xBB])
        Self.append([1, 2, 3], to: &state.ring)  // before it joined, mid-stream
        #expect(pull() == .copied(2))
        #expect(got == [0xAA, 0xBB])
        #expect(pull() == .idle)
        Self.append([4, 5], to: &state.ring)
        #expect(pull() == .copied(2))
        #expect(got == [0xAA, 0xBB, 4, 5])
        Self.append([6], to: &state.ring)
        state.end()
        #expect(pull() == .copied(1))  // the stream's tail still goes out
        #expect(pull() == .ended)
    }

    @Test func aListenerWaitingBeforeTheStreamGetsItFromItsFirstByte() {
        var state = HTTPStreamState(capacity: 64, limit: 32)
        defer { state.ring.deallocate() }
        var early = ListenerCursor()
        var late = ListenerCursor()
        var got: [UInt8] = []
        #expect(state.pull(&early, maxCount: 100) { got.append(contentsOf: $0) } == .idle)
        state.begin(header: [0xAA])
        Self.append([1, 2, 3], to: &state.ring)  // before the early listener's next look
        #expect(state.pull(&early, maxCount: 100) { got.append(contentsOf: $0) } == .copied(1))
        #expect(state.pull(&early, maxCount: 100) { got.append(contentsOf: $0) } == .copied(3))
        #expect(got == [0xAA, 1, 2, 3])
        got = []
        #expect(state.pull(&late, maxCount: 100) { got.append(contentsOf: $0) } == .copied(1))
        #expect(state.pull(&late, maxCount: 100) { got.append(contentsOf: $0) } == .idle)
        #expect(got == [0xAA])
    }

    @Test func aListenerOfAnEarlierStreamIsEnded() {
        var state = HTTPStreamState(capacity: 64, limit: 32)
        defer { state.ring.deallocate() }
        var cursor = ListenerCursor()
        state.begin(header: [1])
        #expect(state.pull(&cursor, maxCount: 10) { _ in } == .copied(1))
        state.end()
        state.begin(header: [2])  // reopened in another format: its header does not fit the old stream
        #expect(state.pull(&cursor, maxCount: 10) { _ in } == .ended)
    }

    @Test func aStalledListenerIsDropped() {
        var state = HTTPStreamState(capacity: 64, limit: 32)
        defer { state.ring.deallocate() }
        var cursor = ListenerCursor()
        state.begin(header: [])
        #expect(state.pull(&cursor, maxCount: 0) { _ in } == .copied(0))
        [UInt8](repeating: 7, count: 33).withUnsafeBytes { state.ring.append($0) }
        #expect(state.pull(&cursor, maxCount: 0) { _ in } == .tooSlow)
    }
}
