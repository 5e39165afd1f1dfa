import CFFmpeg
import MusicModel

/// One logical Ogg stream (a link of a chained stream) around an encoder's packets, put into
/// pages by FFmpeg's Ogg muxer writing to memory.
///
/// ``header`` is the stream's first pages (Opus's `OpusHead` and `OpusTags`, Vorbis's three
/// headers), with the tags it was made with in the comment header, as MPD's encoders write
/// them: each name in upper case. What ``write(_:emit:)`` hands on is always whole pages, so a
/// listener that joins between two of them can decode from the header on.
final class OggPager {
    /// The stream's header pages.
    private(set) var header: [UInt8] = []

    private var format: UnsafeMutablePointer<AVFormatContext>?
    private var io: UnsafeMutablePointer<AVIOContext>?
    private let codecTimeBase: AVRational
    private var streamTimeBase = AVRational(num: 1, den: 1)
    /// What the muxer wrote since the last hand-over.
    fileprivate var staging: [UInt8] = []

    /// Starts a logical stream for the packets of `codec` with `tags` in its comment header.
    init(codec: UnsafeMutablePointer<AVCodecContext>, tags: [TagValue]) throws(OutputError) {
        codecTimeBase = codec.pointee.time_base
        staging.reserveCapacity(256 * 1024)
        guard avformat_alloc_output_context2(&format, nil, "ogg", nil) >= 0, let format else {
            throw OutputError("FFmpeg has no Ogg muxer")
        }
        let size: Int32 = 64 * 1024
        guard let buffer = av_malloc(Int(size))?.assumingMemoryBound(to: UInt8.self) else {
            close()
            throw OutputError("Out of memory")
        }
        io = avio_alloc_context(
            buffer, size, 1, Unmanaged.passUnretained(self).toOpaque(), nil,
            { opaque, bytes, count in
                guard let opaque, let bytes, count > 0 else { return count }
                let pager = Unmanaged<OggPager>.fromOpaque(opaque).takeUnretainedValue()
                pager.staging.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: Int(count)))
                return count
            }, nil)
        guard let io else {
            av_free(buffer)
            close()
            throw OutputError("Out of memory")
        }
        format.pointee.pb = io
        guard let stream = avformat_new_stream(format, nil) else {
            close()
            throw OutputError("Out of memory")
        }
        var result = avcodec_parameters_from_context(stream.pointee.codecpar, codec)
        stream.pointee.time_base = codecTimeBase
        for tag in tags {
            // AV_DICT_MULTIKEY: a song may have several artists, each its own comment.
            av_dict_set(&stream.pointee.metadata, tag.type.name.uppercased(), tag.value, 64)
        }
        var options: OpaquePointer?
        // A page at least every quarter second, so that a listener gets audio soon and a page
        // holds little more than what MPD's encoders put in one (libogg's 4 KiB).
        av_dict_set(&options, "page_duration", "250000", 0)
        if result >= 0 { result = avformat_write_header(format, &options) }
        av_dict_free(&options)
        guard result >= 0 else {
            close()
            throw OutputError("Failed to start an Ogg stream: \(EncoderCodec.describe(result))")
        }
        avio_flush(io)
        streamTimeBase = stream.pointee.time_base
        header = staging
        staging.removeAll(keepingCapacity: true)
    }

    deinit { close() }

    /// Puts `packet` in the stream and hands on the pages it completed.
    func write(_ packet: UnsafeMutablePointer<AVPacket>, emit: (UnsafeRawBufferPointer) -> Void) throws(OutputError) {
        guard let format, let io else { return }
        av_packet_rescale_ts(packet, codecTimeBase, streamTimeBase)
        packet.pointee.stream_index = 0
        let result = av_write_frame(format, packet)
        guard result >= 0 else { throw OutputError("Failed to write an Ogg page: \(EncoderCodec.describe(result))") }
        avio_flush(io)
        handOver(emit)
    }

    /// Ends the logical stream (its last page, marked as the end) and hands on what is left.
    func finish(emit: (UnsafeRawBufferPointer) -> Void) {
        guard let format, let io else { return }
        av_write_trailer(format)
        avio_flush(io)
        handOver(emit)
        close()
    }

    private func handOver(_ emit: (UnsafeRawBufferPointer) -> Void) {
        guard !staging.isEmpty else { return }
        staging.withUnsafeBytes { emit($0) }
        staging.removeAll(keepingCapacity: true)
    }

    private func close() {
        if let io {
            av_free(io.pointee.buffer)
            io.pointee.buffer = nil
        }
        avio_context_free(&io)
        if let format {
            format.pointee.pb = nil
            avformat_free_context(format)
        }
        format = nil
    }
}
