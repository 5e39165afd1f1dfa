import CFFmpeg

/// One open encoder: PCM in, the encoded stream out, through one of FFmpeg's encoders
/// (`pcm_s16le`/`pcm_s24le`/`pcm_s32le` for `wave`, `flac`, `libmp3lame`).
///
/// It runs on the output's thread. The frame, the packet and the codec's buffers are made at
/// open; the steady path copies PCM into the frame and hands each packet's bytes to the
/// caller, with no Swift allocation (FFmpeg's encoders may allocate inside). ``header`` is
/// what a listener needs before the packets to decode from its first byte: the WAV header,
/// FLAC's `fLaC` and STREAMINFO, nothing for MP3 (every MP3 frame stands alone).
final class StreamEncoder {
    /// The bytes a listener gets first.
    let header: [UInt8]
    /// The PCM format the encoder takes.
    let format: PCMFormat

    private var context: UnsafeMutablePointer<AVCodecContext>?
    private var frame: UnsafeMutablePointer<AVFrame>?
    private var packet: UnsafeMutablePointer<AVPacket>?
    private let samplesPerFrame: Int
    private var filled = 0
    private var pts: Int64 = 0
    private let planar: Bool
    private let shift: Int32

    /// Opens the encoder for `encoding` taking `format` (already ``StreamEncoding/format(for:)``).
    init(_ encoding: StreamEncoding, format: PCMFormat) throws(OutputError) {
        self.format = format
        let codecName: String
        let sampleFormat: AVSampleFormat
        switch (encoding, format.sample) {
        case (.wave, .s16): (codecName, sampleFormat) = ("pcm_s16le", AV_SAMPLE_FMT_S16)
        case (.wave, .s24): (codecName, sampleFormat) = ("pcm_s24le", AV_SAMPLE_FMT_S32)
        case (.wave, _): (codecName, sampleFormat) = ("pcm_s32le", AV_SAMPLE_FMT_S32)
        case (.flac, .s16): (codecName, sampleFormat) = ("flac", AV_SAMPLE_FMT_S16)
        case (.flac, _): (codecName, sampleFormat) = ("flac", AV_SAMPLE_FMT_S32)
        case (.lame, _): (codecName, sampleFormat) = ("libmp3lame", AV_SAMPLE_FMT_S16P)
        }
        planar = av_sample_fmt_is_planar(sampleFormat) != 0
        // 24-bit samples sit in the low bytes of 32-bit words here; FFmpeg wants them high.
        shift = format.sample == .s24 ? 8 : 0
        guard let codec = avcodec_find_encoder_by_name(codecName) else {
            throw OutputError("FFmpeg has no \"\(codecName)\" encoder")
        }
        guard let context = avcodec_alloc_context3(codec) else { throw OutputError("Out of memory") }
        self.context = context
        context.pointee.sample_fmt = sampleFormat
        context.pointee.sample_rate = Int32(format.sampleRate)
        context.pointee.time_base = AVRational(num: 1, den: Int32(format.sampleRate))
        av_channel_layout_default(&context.pointee.ch_layout, Int32(format.channels))
        if format.sample == .s24 { context.pointee.bits_per_raw_sample = 24 }
        switch encoding {
        case .flac(let compression): context.pointee.compression_level = Int32(compression)
        case .lame(.bitrate(let kbps)): context.pointee.bit_rate = Int64(kbps) * 1000
        case .lame(.quality(let quality)):
            // MPD hands `quality` to `lame_set_VBR_q` as it is (0 the best, 9 the smallest), and
            // FFmpeg's libmp3lame hands `global_quality` over the same way, in lambda units.
            context.pointee.flags |= AV_CODEC_FLAG_QSCALE
            context.pointee.global_quality = Int32(min(max(quality, 0), 9.999) * Double(FF_QP2LAMBDA))
        case .wave: break
        }
        var result = avcodec_open2(context, codec, nil)
        guard result >= 0 else {
            avcodec_free_context(&self.context)
            throw OutputError("Failed to open the \(codecName) encoder: \(Self.describe(result))")
        }
        samplesPerFrame = context.pointee.frame_size > 0 ? Int(context.pointee.frame_size) : 1152
        frame = av_frame_alloc()
        packet = av_packet_alloc()
        guard let frame, packet != nil else {
            Self.free(&self.context, &self.frame, &self.packet)
            throw OutputError("Out of memory")
        }
        frame.pointee.format = sampleFormat.rawValue
        frame.pointee.nb_samples = Int32(samplesPerFrame)
        av_channel_layout_copy(&frame.pointee.ch_layout, &context.pointee.ch_layout)
        frame.pointee.sample_rate = context.pointee.sample_rate
        result = av_frame_get_buffer(frame, 0)
        guard result >= 0 else {
            Self.free(&self.context, &self.frame, &self.packet)
            throw OutputError("Failed to allocate an audio frame: \(Self.describe(result))")
        }
        switch encoding {
        case .wave:
            let bits = format.sample == .s16 ? 16 : format.sample == .s24 ? 24 : 32
            header = WaveHeader.bytes(
                channels: format.channels, bits: bits, bytesPerSample: bits / 8, sampleRate: format.sampleRate)
        case .flac:
            // FFmpeg's flac encoder leaves STREAMINFO in extradata; a stream is `fLaC` and that
            // block, marked as the last metadata block.
            let size = Int(context.pointee.extradata_size)
            guard size == 34, let extradata = context.pointee.extradata else {
                Self.free(&self.context, &self.frame, &self.packet)
                throw OutputError("The flac encoder gave no STREAMINFO")
            }
            header = Array("fLaC".utf8) + [0x80, 0, 0, 34] + Array(UnsafeBufferPointer(start: extradata, count: size))
        case .lame:
            header = []
        }
    }

    deinit { Self.free(&context, &frame, &packet) }

    /// Encodes the whole frames in `bytes` and hands every packet that is ready to `emit`.
    func encode(_ bytes: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) -> Void) throws(OutputError) {
        guard let frame, let source = bytes.baseAddress else { return }
        let frameBytes = format.frameSize
        let total = bytes.count / frameBytes
        var done = 0
        while done < total {
            if filled == 0 { av_frame_make_writable(frame) }
            let take = min(total - done, samplesPerFrame - filled)
            copy(from: source + done * frameBytes, frames: take, into: frame)
            filled += take
            done += take
            if filled == samplesPerFrame { try send(emit: emit) }
        }
    }

    /// Encodes what is left over and drains the encoder: the end of the stream.
    func finish(emit: (UnsafeRawBufferPointer) -> Void) throws(OutputError) {
        if filled > 0 { try send(emit: emit) }
        guard let context else { return }
        avcodec_send_frame(context, nil)
        try receive(emit: emit)
    }

    private func copy(from source: UnsafeRawPointer, frames: Int, into frame: UnsafeMutablePointer<AVFrame>) {
        let channels = format.channels
        if planar {
            let input = source.assumingMemoryBound(to: Int16.self)
            for channel in 0..<channels {
                guard let plane = frame.pointee.extended_data[channel] else { continue }
                let output = UnsafeMutableRawPointer(plane).assumingMemoryBound(to: Int16.self) + filled
                for index in 0..<frames { output[index] = input[index * channels + channel] }
            }
        } else if shift != 0 {
            let input = source.assumingMemoryBound(to: Int32.self)
            guard let data = frame.pointee.extended_data[0] else { return }
            let output = UnsafeMutableRawPointer(data).assumingMemoryBound(to: Int32.self) + filled * channels
            for index in 0..<(frames * channels) { output[index] = input[index] << shift }
        } else if let data = frame.pointee.extended_data[0] {
            UnsafeMutableRawPointer(data + filled * format.frameSize)
                .copyMemory(from: source, byteCount: frames * format.frameSize)
        }
    }

    private func send(emit: (UnsafeRawBufferPointer) -> Void) throws(OutputError) {
        guard let context, let frame else { return }
        frame.pointee.nb_samples = Int32(filled)
        frame.pointee.pts = pts
        pts += Int64(filled)
        filled = 0
        let result = avcodec_send_frame(context, frame)
        guard result >= 0 else { throw OutputError("Failed to encode: \(Self.describe(result))") }
        try receive(emit: emit)
    }

    private func receive(emit: (UnsafeRawBufferPointer) -> Void) throws(OutputError) {
        guard let context, let packet else { return }
        while true {
            let result = avcodec_receive_packet(context, packet)
            if result == TONEARM_AVERROR_EAGAIN || result == TONEARM_AVERROR_EOF { return }
            guard result >= 0 else { throw OutputError("Failed to encode: \(Self.describe(result))") }
            emit(UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
            av_packet_unref(packet)
        }
    }

    private static func free(
        _ context: inout UnsafeMutablePointer<AVCodecContext>?, _ frame: inout UnsafeMutablePointer<AVFrame>?,
        _ packet: inout UnsafeMutablePointer<AVPacket>?
    ) {
        if context != nil { avcodec_free_context(&context) }
        if frame != nil { av_frame_free(&frame) }
        if packet != nil { av_packet_free(&packet) }
    }

    private static func describe(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
