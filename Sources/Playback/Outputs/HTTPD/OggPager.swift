import CFFmpeg
import COgg
import MusicModel

/// One logical Ogg stream (a link of a chained stream) around a Vorbis or Opus encoder's
/// packets, paged with libogg as MPD's encoders page theirs.
///
/// ``header`` is the stream's first pages: the codec's identification header alone on the
/// first page, then the comment header (with the tags it was made with, each name in upper case,
/// each value its own comment, as MPD writes them) and, for Vorbis, the setup header. What
/// ``write(_:emit:)`` hands on is always whole pages, so a listener who joins between two of
/// them can decode from the header on. The last packet is held back until the next one comes,
/// so that ``finish(emit:)`` can mark it as the end of the stream.
final class OggPager {
    /// The stream's header pages.
    private(set) var header: [UInt8] = []

    /// libogg's state, on the heap: the pages it hands out point into it, so it must not move.
    private let stream = UnsafeMutablePointer<ogg_stream_state>.allocate(capacity: 1)
    private var packetNumber: Int64 = 0
    /// Samples to add to a packet's end to get its granule position: Opus counts its pre-skip
    /// (RFC 7845); Vorbis's granule is the packet's end as it is.
    private let granuleOffset: Int64
    /// A page is flushed once this many samples went into it (a quarter of a second), so that
    /// silence or a low bitrate does not keep listeners waiting; libogg otherwise fills 4 KiB.
    private let flushInterval: Int64
    private var pageStart: Int64 = 0
    /// The packet held back: its bytes and granule position.
    private var held: [UInt8] = []
    private var heldGranule: Int64 = -1
    /// Pages ready to be handed on as one piece.
    private var staging: [UInt8] = []

    /// Starts a logical stream for the packets of `codec` (libvorbis or libopus), with `tags`
    /// in its comment header and a new random serial number.
    init(codec: UnsafeMutablePointer<AVCodecContext>, tags: [TagValue]) throws(OutputError) {
        granuleOffset = codec.pointee.codec_id == AV_CODEC_ID_OPUS ? Int64(codec.pointee.initial_padding) : 0
        flushInterval = Int64(codec.pointee.sample_rate / 4)
        held.reserveCapacity(16 * 1024)
        staging.reserveCapacity(80 * 1024)
        let extradata = UnsafeBufferPointer(
            start: codec.pointee.extradata, count: Int(max(codec.pointee.extradata_size, 0)))
        let packets: [[UInt8]]
        if codec.pointee.codec_id == AV_CODEC_ID_OPUS {
            guard extradata.starts(with: Array("OpusHead".utf8)) else {
                throw OutputError("The opus encoder gave no OpusHead")
            }
            packets = [
                Array(extradata), Self.comments(magic: Array("OpusTags".utf8), vendor: "Tonearm", tags, framing: false),
            ]
        } else {
            guard let split = Self.xiphPackets(extradata), split.count == 3, split[1].count > 11 else {
                throw OutputError("The vorbis encoder gave no headers")
            }
            // libvorbis's vendor string, as MPD's stream carries it.
            let vendorLength = split[1][7..<11].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            let vendor = String(decoding: split[1].dropFirst(11).prefix(vendorLength), as: UTF8.self)
            packets = [
                split[0], Self.comments(magic: [3] + Array("vorbis".utf8), vendor: vendor, tags, framing: true),
                split[2],
            ]
        }
        stream.initialize(to: ogg_stream_state())
        ogg_stream_init(stream, Int32(bitPattern: UInt32.random(in: 1...UInt32.max)))
        for (index, packet) in packets.enumerated() {
            submit(packet, granule: 0, beginning: index == 0, end: false)
            // The identification header has a page of its own; the others end the header pages.
            if index == 0 || index == packets.count - 1 { header += takePages(flush: true) }
        }
    }

    deinit {
        ogg_stream_clear(stream)
        stream.deallocate()
    }

    /// Puts `packet` in the stream and hands on the pages it completed.
    func write(_ packet: UnsafeMutablePointer<AVPacket>, emit: (UnsafeRawBufferPointer) -> Void) {
        let end = packet.pointee.pts + packet.pointee.duration + granuleOffset
        if heldGranule >= 0 {
            let flush = heldGranule - pageStart >= flushInterval
            held.withUnsafeBufferPointer { submit($0, granule: heldGranule, beginning: false, end: false) }
            staging.removeAll(keepingCapacity: true)
            appendPages(flush: flush)
            if !staging.isEmpty { staging.withUnsafeBytes { emit($0) } }
        }
        held.removeAll(keepingCapacity: true)
        held.append(contentsOf: UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
        heldGranule = end
    }

    /// Ends the logical stream: the held packet goes out marked as the last, and the pages left.
    func finish(emit: (UnsafeRawBufferPointer) -> Void) {
        staging.removeAll(keepingCapacity: true)
        if heldGranule >= 0 {
            held.withUnsafeBufferPointer { submit($0, granule: heldGranule, beginning: false, end: true) }
            heldGranule = -1
        }
        appendPages(flush: true)
        if !staging.isEmpty { staging.withUnsafeBytes { emit($0) } }
    }

    private func submit(_ bytes: UnsafeBufferPointer<UInt8>, granule: Int64, beginning: Bool, end: Bool) {
        var packet = ogg_packet(
            packet: UnsafeMutablePointer(mutating: bytes.baseAddress), bytes: bytes.count, b_o_s: beginning ? 1 : 0,
            e_o_s: end ? 1 : 0, granulepos: granule, packetno: packetNumber)
        packetNumber += 1
        ogg_stream_packetin(stream, &packet)
    }

    private func submit(_ bytes: [UInt8], granule: Int64, beginning: Bool, end: Bool) {
        bytes.withUnsafeBufferPointer { submit($0, granule: granule, beginning: beginning, end: end) }
    }

    /// Appends the pages libogg completed (all it holds, when `flush`) to `staging`.
    private func appendPages(flush: Bool) {
        var page = ogg_page()
        while (flush ? ogg_stream_flush(stream, &page) : ogg_stream_pageout(stream, &page)) != 0 {
            staging.append(contentsOf: UnsafeBufferPointer(start: page.header, count: page.header_len))
            staging.append(contentsOf: UnsafeBufferPointer(start: page.body, count: page.body_len))
            pageStart = ogg_page_granulepos(&page)
        }
    }

    private func takePages(flush: Bool) -> [UInt8] {
        staging.removeAll(keepingCapacity: true)
        appendPages(flush: flush)
        return staging
    }

    /// A comment header: `magic`, the vendor, the tags as `NAME=value` (MPD's names in upper
    /// case), and for Vorbis the framing bit.
    static func comments(magic: [UInt8], vendor: String, _ tags: [TagValue], framing: Bool) -> [UInt8] {
        var bytes = magic
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { bytes += $0 } }
        append32(vendor.utf8.count)
        bytes += vendor.utf8
        append32(tags.count)
        for tag in tags {
            let comment = Array((tag.type.name.uppercased() + "=" + tag.value).utf8)
            append32(comment.count)
            bytes += comment
        }
        if framing { bytes.append(1) }
        return bytes
    }

    /// The packets of Xiph-laced extradata (a count less one, the sizes but the last's in 255s,
    /// then the packets), as FFmpeg's libvorbis encoder leaves its three headers.
    static func xiphPackets(_ data: UnsafeBufferPointer<UInt8>) -> [[UInt8]]? {
        guard let first = data.first else { return nil }
        let count = Int(first) + 1
        var at = 1
        var sizes: [Int] = []
        for _ in 0..<(count - 1) {
            var size = 0
            while at < data.count, data[at] == 255 {
                size += 255
                at += 1
            }
            guard at < data.count else { return nil }
            size += Int(data[at])
            at += 1
            sizes.append(size)
        }
        let total = sizes.reduce(0, +)
        guard data.count - at > total else { return nil }
        sizes.append(data.count - at - total)
        var packets: [[UInt8]] = []
        for size in sizes {
            packets.append(Array(data[at..<(at + size)]))
            at += size
        }
        return packets
    }
}
