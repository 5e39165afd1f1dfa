/// The `encoder` of an `httpd` output and its options, checked when the configuration is read.
///
/// MPD's names and rules: `wave` (no options), `flac` (`compression` 0…8, default 5) and `lame`
/// (MP3: `bitrate` in kbit/s or `quality` −1…10, exactly one of them). MPD's other encoders
/// (`vorbis`, its default, `opus`, `twolame`, `shine`) are named in the error so that a user
/// sees they are known but not there yet.
package enum StreamEncoding: Sendable, Equatable {
    /// Uncompressed PCM behind a RIFF header (MPD's `wave`).
    case wave
    /// Lossless FLAC at a compression level.
    case flac(compression: Int)
    /// MP3 through libmp3lame, at a constant bitrate (kbit/s) or a VBR quality.
    case lame(LameRate)

    /// How a `lame` encoder spends bits.
    package enum LameRate: Sendable, Equatable {
        /// Constant bitrate in kbit/s (`bitrate`).
        case bitrate(Int)
        /// Variable bitrate at LAME's VBR quality (`quality`): MPD accepts −1…10 and hands the
        /// whole part to LAME, where 0 is the best and 9 the smallest.
        case quality(Double)
    }

    /// Reads `encoder` and its options from an `audio_output` block's settings.
    package init(settings: [String: String]) throws(OutputError) {
        let name = settings["encoder"] ?? "vorbis"
        switch name {
        case "wave":
            self = .wave
        case "flac":
            let text = settings["compression"] ?? "5"
            guard let level = Int(text), (0...8).contains(level) else {
                throw OutputError("compression: \"\(text)\" is not a number from 0 to 8")
            }
            self = .flac(compression: level)
        case "lame":
            switch (settings["quality"], settings["bitrate"]) {
            case (let quality?, nil):
                guard let value = Double(quality), (-1...10).contains(value) else {
                    throw OutputError("quality \"\(quality)\" is not a number in the range -1 to 10")
                }
                self = .lame(.quality(value))
            case (nil, let bitrate?):
                guard let value = Int(bitrate), value > 0 else {
                    throw OutputError("bitrate should be a positive integer")
                }
                self = .lame(.bitrate(value))
            case (.some, .some):
                throw OutputError("quality and bitrate are both defined")
            case (nil, nil):
                throw OutputError("neither bitrate nor quality defined")
            }
        case "vorbis", "opus", "twolame", "shine", "null":
            throw OutputError(
                "The \"\(name)\" encoder is not supported by Tonearm yet; use \"wave\", \"flac\" or \"lame\"")
        default:
            throw OutputError("No such encoder: \(name)")
        }
    }

    /// The `Content-Type` MPD sends for this encoder's stream.
    package var contentType: String {
        switch self {
        case .wave: "audio/wav"
        case .flac: "audio/flac"
        case .lame: "audio/mpeg"
        }
    }

    /// The format this encoder takes for a source in `format`, as MPD's encoders choose it:
    /// `wave` keeps 16, 24 and 32-bit samples and makes floats 16-bit; `flac` keeps 16 and
    /// 24 bits and makes the rest 24-bit; `lame` takes 16-bit stereo or mono at a sample rate
    /// MP3 has (44.1 kHz otherwise). The pipeline converts to it.
    package func format(for format: PCMFormat) -> PCMFormat {
        var result = format
        switch self {
        case .wave:
            if result.sample == .float { result.sample = .s16 }
        case .flac:
            if result.sample == .s32 || result.sample == .float { result.sample = .s24 }
            result.channels = min(result.channels, 8)
        case .lame:
            result.sample = .s16
            result.channels = min(result.channels, 2)
            if ![8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000].contains(result.sampleRate) {
                result.sampleRate = 44100
            }
        }
        return result
    }
}
