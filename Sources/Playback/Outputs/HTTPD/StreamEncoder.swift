import CFFmpeg
import MusicModel

/// One open encoder: PCM in, the encoded stream out, through one of FFmpeg's encoders
/// (`pcm_s16le`/`pcm_s24le`/`pcm_s32le` for `wave`, `flac`, `libmp3lame`, `libvorbis`,
/// `libopus`), with an ``EncoderResampler`` in front of the lossy ones and an ``OggPager``
/// behind Vorbis and Opus.
///
/// It runs on the output's thread. The frame, the packet and the codec's buffers are made at
/// open; the steady path copies PCM into the frame and hands each packet's bytes (or each
/// completed Ogg page) to the caller, with no Swift allocation (FFmpeg's encoders may allocate
/// inside). ``header`` is what a listener needs before the packets to decode from its first
/// byte: the WAV header, FLAC's `fLaC` and STREAMINFO, the Ogg stream's header pages, nothing
/// for MP3 (every MP3 frame stands alone).
final class StreamEncoder {
    /// The bytes a listener gets first; for Ogg, those of the current logical stream.
    var header: [UInt8] { pager?.header ?? fixedHeader }
    /// The PCM format the output takes.
    let format: PCMFormat

    private let encoding: StreamEncoding
    private var codec: EncoderCodec
    private var resampler: EncoderResampler?
    private var pager: OggPager?
    private let fixedHeader: [UInt8]
    /// 24-bit samples sit in the low bytes of 32-bit words here; FFmpeg wants them high.
    private let shift: Int32

    /// Opens the encoder for `encoding` taking `format` (already ``StreamEncoding/format(for:)``);
    /// an Ogg stream starts with `tags` in its comment header.
    init(_ encoding: StreamEncoding, format: PCMFormat, tags: [TagValue] = []) throws(OutputError) {
        self.encoding = encoding
        self.format = format
        shift = format.sample == .s24 ? 8 : 0
        codec = try Self.openCodec(encoding, format: encoding.encoderFormat(for: format), source: format)
        switch encoding {
        case .wave:
            let bits = format.sample == .s16 ? 16 : format.sample == .s24 ? 24 : 32
            fixedHeader = WaveHeader.bytes(
                channels: format.channels, bits: bits, bytesPerSample: bits / 8, sampleRate: format.sampleRate)
        case .flac:
            // FFmpeg's flac encoder leaves STREAMINFO in extradata; a stream is `fLaC` and that
            // block, marked as the last metadata block.
            let size = Int(codec.context.pointee.extradata_size)
            guard size == 34, let extradata = codec.context.pointee.extradata else {
                throw OutputError("The flac encoder gave no STREAMINFO")
            }
            fixedHeader =
                Array("fLaC".utf8) + [0x80, 0, 0, 34] + Array(UnsafeBufferPointer(start: extradata, count: size))
        case .lame, .vorbis, .opus:
            fixedHeader = []
        }
        if case .wave = encoding {
        } else if case .flac = encoding {
        } else {
            resampler = try EncoderResampler(from: format, to: codec)
        }
        if encoding.isOgg { pager = try OggPager(codec: codec.context, tags: tags) }
    }

    /// Encodes the whole frames in `bytes` and hands every packet (or page) that is ready to `emit`.
    func encode(_ bytes: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) -> Void) throws(OutputError) {
        guard let source = bytes.baseAddress else { return }
        let frameBytes = format.frameSize
        let total = bytes.count / frameBytes
        if let resampler {
            var offset = 0
            while offset < total {
                let count = min(total - offset, resampler.maximumInput)
                let produced = try resampler.convert(source + offset * frameBytes, frames: count)
                try codec.append(frames: produced, copy: resampler.copy) { packet throws(OutputError) in
                    try route(packet, emit: emit)
                }
                offset += count
            }
        } else {
            try codec.append(frames: total) { frame, at, from, count in
                self.copy(from: source + from * frameBytes, frames: count, into: frame, at: at)
            } emit: { packet throws(OutputError) in
                try route(packet, emit: emit)
            }
        }
    }

    /// Encodes what is left over and drains the encoder: the end of the stream (for Ogg, its
    /// last page, marked as the end).
    func finish(emit: (UnsafeRawBufferPointer) -> Void) throws(OutputError) {
        if let resampler {
            let produced = try resampler.flush()
            try codec.append(frames: produced, copy: resampler.copy) { packet throws(OutputError) in
                try route(packet, emit: emit)
            }
        }
        try codec.finish { packet throws(OutputError) in try route(packet, emit: emit) }
        pager?.finish(emit: emit)
        pager = nil
    }

    /// A new song for an encoder that carries tags (``StreamEncoding/carriesTags``): the
    /// current Ogg stream ends and a new one begins with `tags`, as MPD's Vorbis and Opus
    /// encoders chain streams. What ends the old stream goes to `emit`; the new ``header``
    /// is not emitted here.
    /// The new stream's encoder is made first: if that fails, the old stream goes on as it was.
    /// Once it is made, the new stream begins even if ending the old one failed (its last
    /// packets are then lost, and players start on the new stream's header all the same).
    func chain(tags: [TagValue], emit: (UnsafeRawBufferPointer) -> Void) throws(OutputError) {
        let newCodec = try Self.openCodec(encoding, format: encoding.encoderFormat(for: format), source: format)
        let newResampler = resampler == nil ? nil : try EncoderResampler(from: format, to: newCodec)
        let newPager = try OggPager(codec: newCodec.context, tags: tags)
        try? finish(emit: emit)
        codec = newCodec
        resampler = newResampler
        pager = newPager
    }

    private func route(_ packet: UnsafeMutablePointer<AVPacket>, emit: (UnsafeRawBufferPointer) -> Void)
        throws(OutputError)
    {
        if let pager {
            pager.write(packet, emit: emit)
        } else {
            emit(UnsafeRawBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
        }
    }

    /// Copies interleaved frames as they are (`wave`, `flac`), 24-bit ones shifted up.
    private func copy(from source: UnsafeRawPointer, frames: Int, into frame: UnsafeMutablePointer<AVFrame>, at: Int) {
        guard let data = frame.pointee.extended_data[0] else { return }
        if shift != 0 {
            let input = source.assumingMemoryBound(to: Int32.self)
            let output = UnsafeMutableRawPointer(data).assumingMemoryBound(to: Int32.self) + at * format.channels
            for index in 0..<(frames * format.channels) { output[index] = input[index] << shift }
        } else {
            UnsafeMutableRawPointer(data + at * format.frameSize).copyMemory(
                from: source, byteCount: frames * format.frameSize)
        }
    }

    /// Opens FFmpeg's encoder for `encoding`, fed in `format` (``StreamEncoding/encoderFormat(for:)``)
    /// from an output open in `source`.
    private static func openCodec(_ encoding: StreamEncoding, format: PCMFormat, source: PCMFormat)
        throws(OutputError) -> EncoderCodec
    {
        let codecName: String
        let sampleFormat: AVSampleFormat
        switch (encoding, source.sample) {
        case (.wave, .s16): (codecName, sampleFormat) = ("pcm_s16le", AV_SAMPLE_FMT_S16)
        case (.wave, .s24): (codecName, sampleFormat) = ("pcm_s24le", AV_SAMPLE_FMT_S32)
        case (.wave, _): (codecName, sampleFormat) = ("pcm_s32le", AV_SAMPLE_FMT_S32)
        case (.flac, .s16): (codecName, sampleFormat) = ("flac", AV_SAMPLE_FMT_S16)
        case (.flac, _): (codecName, sampleFormat) = ("flac", AV_SAMPLE_FMT_S32)
        case (.lame, _): (codecName, sampleFormat) = ("libmp3lame", AV_SAMPLE_FMT_S16P)
        case (.vorbis, _): (codecName, sampleFormat) = ("libvorbis", AV_SAMPLE_FMT_FLTP)
        case (.opus, .s16): (codecName, sampleFormat) = ("libopus", AV_SAMPLE_FMT_S16)
        case (.opus, _): (codecName, sampleFormat) = ("libopus", AV_SAMPLE_FMT_FLT)
        }
        return try EncoderCodec(codecName: codecName, sampleFormat: sampleFormat, format: format) { context, options in
            if source.sample == .s24 { context.pointee.bits_per_raw_sample = 24 }
            switch encoding {
            case .flac(let compression):
                context.pointee.compression_level = Int32(compression)
            case .lame(.bitrate(let kbps)), .vorbis(.bitrate(let kbps)):
                context.pointee.bit_rate = Int64(kbps) * 1000
            case .lame(.quality(let quality)):
                // MPD hands `quality` to `lame_set_VBR_q` as it is (0 the best, 9 the
                // smallest); FFmpeg's libmp3lame hands `global_quality` over the same way.
                context.pointee.flags |= AV_CODEC_FLAG_QSCALE
                context.pointee.global_quality = Int32(min(max(quality, 0), 9.999) * Double(FF_QP2LAMBDA))
            case .vorbis(.quality(let quality)):
                // MPD gives libvorbis `quality / 10`; FFmpeg's libvorbis takes `global_quality`
                // in lambda units and divides by ten the same way.
                context.pointee.flags |= AV_CODEC_FLAG_QSCALE
                context.pointee.global_quality = Int32(quality * Double(FF_QP2LAMBDA))
            case .opus(let opus):
                // FFmpeg's libopus wrapper refuses more than 256 kbit/s a channel, where MPD
                // hands libopus `max` or any rate up to 512 kbit/s and libopus clamps them to
                // what it can use; Tonearm clamps at the wrapper's limit.
                let ceiling = 256_000 * Int64(format.channels)
                if opus.maximumBitrate {
                    context.pointee.bit_rate = ceiling
                } else if let bitrate = opus.bitrate {
                    context.pointee.bit_rate = min(Int64(bitrate), ceiling)
                }
                context.pointee.compression_level = Int32(opus.complexity)
                av_dict_set(&options, "vbr", opus.vbr, 0)
                av_dict_set(&options, "packet_loss", String(opus.packetLoss), 0)
            case .wave:
                break
            }
        }
    }
}
