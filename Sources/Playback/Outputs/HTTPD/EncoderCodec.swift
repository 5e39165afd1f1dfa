import CFFmpeg

/// One opened FFmpeg audio encoder and its frame: the samples are appended a piece at a time,
/// and each full frame is encoded and its packets handed on.
///
/// Everything is allocated when it opens; appending and encoding allocate nothing of Swift's
/// (FFmpeg's encoders may allocate inside).
final class EncoderCodec {
    /// The opened encoder.
    let context: UnsafeMutablePointer<AVCodecContext>
    /// The format of the samples it takes (rate, channels; the sample type is ``sampleFormat``).
    let format: PCMFormat
    /// FFmpeg's sample type for the encoder.
    let sampleFormat: AVSampleFormat
    /// Frames per encoded frame.
    let samplesPerFrame: Int
    /// Whether each channel has its own plane.
    let planar: Bool
    /// Bytes per sample of ``sampleFormat``.
    let bytesPerSample: Int

    private var contextPointer: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private var filled = 0
    private var pts: Int64 = 0

    /// Opens the encoder `codecName` for `format`'s rate and channels in `sampleFormat`;
    /// `configure` sets its options (bitrate, quality, private options) before it opens.
    init(
        codecName: String, sampleFormat: AVSampleFormat, format: PCMFormat,
        configure: (UnsafeMutablePointer<AVCodecContext>, inout OpaquePointer?) -> Void
    ) throws(OutputError) {
        guard let codec = avcodec_find_encoder_by_name(codecName) else {
            throw OutputError("FFmpeg has no \"\(codecName)\" encoder")
        }
        guard let context = avcodec_alloc_context3(codec) else { throw OutputError("Out of memory") }
        contextPointer = context
        self.context = context
        self.format = format
        self.sampleFormat = sampleFormat
        planar = av_sample_fmt_is_planar(sampleFormat) != 0
        bytesPerSample = Int(av_get_bytes_per_sample(sampleFormat))
        context.pointee.sample_fmt = sampleFormat
        context.pointee.sample_rate = Int32(format.sampleRate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(format.sampleRate))
        av_channel_layout_default(&context.pointee.ch_layout, Int32(format.channels))
        var options: OpaquePointer?
        configure(context, &options)
        var result = avcodec_open2(context, codec, &options)
        av_dict_free(&options)
        guard result >= 0 else {
            avcodec_free_context(&contextPointer)
            throw OutputError("Failed to open the \(codecName) encoder: \(Self.describe(result))")
        }
        samplesPerFrame = context.pointee.frame_size > 0 ? Int(context.pointee.frame_size) : 1152
        frame = av_frame_alloc()
        packet = av_packet_alloc()
        guard let frame, packet != nil else {
            free()
            throw OutputError("Out of memory")
        }
        frame.pointee.format = sampleFormat.rawValue
        frame.pointee.nb_samples = Int32(samplesPerFrame)
        av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout)
        frame.pointee.sample_rate = context.pointee.sample_rate
        result = av_frame_get_buffer(frame, 0)
        guard result >= 0 else {
            free()
            throw OutputError("Failed to allocate an audio frame: \(Self.describe(result))")
        }
    }

    deinit { free() }

    /// Appends `count` frames: `copy` is called with the frame, the frame offset to write at,
    /// the offset in the caller's samples to read from, and how many frames to copy. Each
    /// frame that fills is encoded and its packets go to `emit`.
    func append(
        frames count: Int,
        copy: (_ frame: UnsafeMutablePointer<AVFrame>, _ at: Int, _ from: Int, _ count: Int) -> Void,
        emit: (UnsafeMutablePointer<AVPacket>) throws(OutputError) -> Void
    ) throws(OutputError) {
        guard let frame else { return }
        var done = 0
        while done < count {
            if filled == 0 { av_frame_make_writable(frame) }
            let take = min(count - done, samplesPerFrame - filled)
            copy(frame, filled, done, take)
            filled += take
            done += take
            if filled == samplesPerFrame { try send(emit: emit) }
        }
    }

    /// Encodes the partial frame left over and drains the encoder: the end of its stream. The
    /// encoder takes nothing afterwards.
    func finish(emit: (UnsafeMutablePointer<AVPacket>) throws(OutputError) -> Void) throws(OutputError) {
        if filled > 0 { try send(emit: emit) }
        avcodec_send_frame(context, nil)
        try receive(emit: emit)
    }

    private func send(emit: (UnsafeMutablePointer<AVPacket>) throws(OutputError) -> Void) throws(OutputError) {
        guard let frame else { return }
        frame.pointee.nb_samples = Int32(filled)
        frame.pointee.pts = pts
        pts += Int64(filled)
        filled = 0
        let result = avcodec_send_frame(context, frame)
        guard result >= 0 else { throw OutputError("Failed to encode: \(Self.describe(result))") }
        try receive(emit: emit)
    }

    private func receive(emit: (UnsafeMutablePointer<AVPacket>) throws(OutputError) -> Void) throws(OutputError) {
        guard let packet else { return }
        while true {
            let result = avcodec_receive_packet(context, packet)
            if result == TONEARM_AVERROR_EAGAIN || result == TONEARM_AVERROR_EOF { return }
            guard result >= 0 else { throw OutputError("Failed to encode: \(Self.describe(result))") }
            defer { av_packet_unref(packet) }
            try emit(packet)
        }
    }

    private func free() {
        if contextPointer != nil { avcodec_free_context(&contextPointer) }
        if frame != nil { av_frame_free(&frame) }
        if packet != nil { av_packet_free(&packet) }
    }

    /// FFmpeg's words for an error code.
    static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
