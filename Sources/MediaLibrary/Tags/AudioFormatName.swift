import CFFmpeg

/// Names a stream's audio format the way Debian's MPD 0.23 prints `Format:` for the same file.
///
/// MPD reports the format its decoder plugin produces, and Debian's MPD decodes most formats
/// with native plugins, so the sample format follows those plugins, not FFmpeg's decoders:
/// MP3 through libmad is 24-bit, Opus through libopus 16-bit, WAV/AIFF through libsndfile
/// 16-bit up to 16 bits and 32-bit above, FLAC and WavPack at their stored depth. Everything else
/// goes through FFmpeg, whose decoder's sample format decides (`fltp` → `f`, `s16p` → `16`).
/// The decoder is never opened: the format it declares is read from its descriptor.
enum AudioFormatName {
    /// What the container header tells about one audio stream.
    struct StreamFacts {
        var codecID: AVCodecID
        var sampleRate: Int
        var channels: Int
        /// `bits_per_coded_sample`, or the FLAC STREAMINFO depth.
        var codedBits: Int
        /// `bits_per_raw_sample`.
        var rawBits: Int
        /// The decoded sample format when `avformat_find_stream_info` ran, else `AV_SAMPLE_FMT_NONE`.
        var sampleFormat: AVSampleFormat
    }

    /// `rate:bits:channels` (or `dsdN:channels`), or nil when the rate or channel count is unknown.
    static func describe(_ facts: StreamFacts) -> String? {
        guard facts.sampleRate > 0, facts.channels > 0 else { return nil }
        let codecName = String(cString: avcodec_get_name(facts.codecID))
        if codecName.hasPrefix("dsd_") {
            // MPD's DSD plugins: the bit rate per channel as a multiple of 44.1 kHz; FFmpeg's
            // rate counts bytes (8 one-bit samples).
            return "dsd\(facts.sampleRate * 8 / 44100):\(facts.channels)"
        }
        guard let bits = bits(facts, codecName: codecName) else { return nil }
        return "\(facts.sampleRate):\(bits):\(facts.channels)"
    }

    private static func bits(_ facts: StreamFacts, codecName: String) -> String? {
        switch facts.codecID {
        case AV_CODEC_ID_MP1, AV_CODEC_ID_MP2, AV_CODEC_ID_MP3:
            return "24"
        case AV_CODEC_ID_OPUS:
            return "16"
        case AV_CODEC_ID_VORBIS:
            return "f"
        case AV_CODEC_ID_FLAC, AV_CODEC_ID_WAVPACK:
            let depth = facts.codedBits > 0 ? facts.codedBits : facts.rawBits
            guard depth > 0 else { break }
            return depth <= 8 ? "8" : depth <= 16 ? "16" : depth <= 24 ? "24" : "32"
        default:
            if codecName.hasPrefix("pcm_") {
                if codecName.hasPrefix("pcm_f") { return "f" }
                let depth = Int(av_get_bits_per_sample(facts.codecID))
                return depth <= 16 ? "16" : "32"
            }
        }
        if facts.sampleFormat != AV_SAMPLE_FMT_NONE { return name(facts.sampleFormat) }
        return name(decoderFormat(facts))
    }

    /// The sample format FFmpeg's decoder will produce: its only declared one, or, when it
    /// declares several (ALAC, APE: 16 or 32 bits), the one that fits the stored depth.
    private static func decoderFormat(_ facts: StreamFacts) -> AVSampleFormat {
        guard let list = tonearm_decoder_sample_formats(facts.codecID) else { return AV_SAMPLE_FMT_NONE }
        var formats: [AVSampleFormat] = []
        var index = 0
        while list[index] != AV_SAMPLE_FMT_NONE {
            formats.append(list[index])
            index += 1
        }
        guard formats.count > 1 else { return formats.first ?? AV_SAMPLE_FMT_NONE }
        let depth = max(facts.codedBits, facts.rawBits)
        let preferred: [AVSampleFormat] =
            depth > 16
            ? [AV_SAMPLE_FMT_S32P, AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_FLT]
            : [AV_SAMPLE_FMT_S16P, AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_FLTP, AV_SAMPLE_FMT_FLT]
        return preferred.first(where: formats.contains) ?? formats[0]
    }

    /// MPD's `ffmpeg_sample_format`: the formats its FFmpeg plugin accepts.
    private static func name(_ format: AVSampleFormat) -> String? {
        switch format {
        case AV_SAMPLE_FMT_S16, AV_SAMPLE_FMT_S16P: "16"
        case AV_SAMPLE_FMT_S32, AV_SAMPLE_FMT_S32P: "32"
        case AV_SAMPLE_FMT_FLT, AV_SAMPLE_FMT_FLTP: "f"
        default: nil
        }
    }

    /// Sample rate, channel count and depth from a FLAC STREAMINFO block (the stream's
    /// extradata), which libavformat does not copy into the codec parameters until it decodes.
    static func flacStreamInfo(_ extradata: UnsafeBufferPointer<UInt8>) -> (rate: Int, channels: Int, bits: Int)? {
        // Ogg FLAC and some muxers prefix the block with "fLaC" and a block header.
        var base = 0
        if extradata.count >= 42, extradata[0] == 0x66, extradata[1] == 0x4C, extradata[2] == 0x61, extradata[3] == 0x43
        {
            base = 8
        }
        guard extradata.count >= base + 18 else { return nil }
        let b = { (offset: Int) in Int(extradata[base + offset]) }
        let rate = b(10) << 12 | b(11) << 4 | b(12) >> 4
        let channels = (b(12) >> 1 & 0x07) + 1
        let bits = ((b(12) & 0x01) << 4 | b(13) >> 4) + 1
        return rate > 0 ? (rate, channels, bits) : nil
    }
}
