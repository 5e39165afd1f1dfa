/// The `encoder` of an `httpd` output and its options, checked when the configuration is read.
///
/// MPD's names and rules: `vorbis` (its default: `quality` −1…10, default 3, or `bitrate` in
/// kbit/s), `opus` (`bitrate` in bit/s, `auto` or `max`; `complexity`, `signal`, `vbr`,
/// `packet_loss`, `opustags`), `lame` (MP3: `bitrate` in kbit/s or `quality` −1…10, exactly
/// one of them), `flac` (`compression` 0…8, default 5) and `wave`. MPD's other encoders
/// (`twolame`, `shine`, `null`) are named in the error so that a user sees they are known but
/// not there.
package enum StreamEncoding: Sendable, Equatable {
    /// Uncompressed PCM behind a RIFF header (MPD's `wave`).
    case wave
    /// Lossless FLAC at a compression level.
    case flac(compression: Int)
    /// MP3 through libmp3lame, at a constant bitrate (kbit/s) or a VBR quality.
    case lame(LossyRate)
    /// Ogg Vorbis through libvorbis, at a VBR quality or an average bitrate (kbit/s).
    case vorbis(LossyRate)
    /// Ogg Opus through libopus.
    case opus(OpusOptions)

    /// How a `lame` or `vorbis` encoder spends bits.
    package enum LossyRate: Sendable, Equatable {
        /// A bitrate in kbit/s (`bitrate`): constant for `lame`, the average for `vorbis`.
        case bitrate(Int)
        /// A VBR quality (`quality`, −1…10): LAME's, where 0 is the best and 9 the smallest,
        /// or Vorbis's, where 10 is the best.
        case quality(Double)
    }

    /// The options of MPD's `opus` encoder.
    package struct OpusOptions: Sendable, Equatable {
        /// The bitrate in bit/s; `nil` for `auto` (libopus's choice for the channels).
        package var bitrate: Int?
        /// `bitrate "max"`: as much as libopus takes.
        package var maximumBitrate = false
        /// `complexity`, 0…10 (default 10).
        package var complexity = 10
        /// `vbr`: `yes` (default), `no` or `constrained`.
        package var vbr = "on"
        /// `packet_loss`, the expected loss in per cent, 0…100 (default 0).
        package var packetLoss = 0
        /// `opustags`: each song starts a new Ogg stream with its tags (chaining), instead of
        /// ICY metadata; off by default, as in MPD.
        package var chaining = false
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
            guard let rate = try Self.lossyRate(settings) else {
                throw OutputError("neither bitrate nor quality defined")
            }
            self = .lame(rate)
        case "vorbis":
            // MPD's Vorbis encoder falls back to quality 3 when neither is set.
            self = .vorbis(try Self.lossyRate(settings) ?? .quality(3))
        case "opus":
            self = .opus(try Self.opusOptions(settings))
        case "twolame", "shine", "null":
            throw OutputError(
                "The \"\(name)\" encoder is not supported by Tonearm; use \"vorbis\", \"opus\", \"lame\", \"flac\" or \"wave\""
            )
        default:
            throw OutputError("No such encoder: \(name)")
        }
    }

    /// `quality` or `bitrate`, with the messages of MPD's `lame` and `vorbis` encoders; nil
    /// when neither is set.
    private static func lossyRate(_ settings: [String: String]) throws(OutputError) -> LossyRate? {
        switch (settings["quality"], settings["bitrate"]) {
        case (let quality?, nil):
            guard let value = Double(quality), (-1...10).contains(value) else {
                throw OutputError("quality \"\(quality)\" is not a number in the range -1 to 10")
            }
            return .quality(value)
        case (nil, let bitrate?):
            guard let value = Int(bitrate), value > 0 else {
                throw OutputError("bitrate should be a positive integer")
            }
            return .bitrate(value)
        case (.some, .some):
            throw OutputError("quality and bitrate are both defined")
        case (nil, nil):
            return nil
        }
    }

    /// The `opus` options, with the messages of MPD's encoder.
    private static func opusOptions(_ settings: [String: String]) throws(OutputError) -> OpusOptions {
        var options = OpusOptions()
        switch settings["bitrate"] ?? "auto" {
        case "auto": break
        case "max": options.maximumBitrate = true
        case let text:
            guard let value = Int(text), (500...512_000).contains(value) else {
                throw OutputError("Invalid bit rate")
            }
            options.bitrate = value
        }
        if let text = settings["complexity"] {
            guard let value = Int(text), (0...10).contains(value) else { throw OutputError("Invalid complexity") }
            options.complexity = value
        }
        // libopus's signal hint is not reachable through FFmpeg's wrapper, which leaves it on
        // `auto`; the values are still checked as MPD checks them.
        guard ["auto", "voice", "music"].contains(settings["signal"] ?? "auto") else {
            throw OutputError("Invalid signal")
        }
        switch settings["vbr"] ?? "yes" {
        case "yes": options.vbr = "on"
        case "no": options.vbr = "off"
        case "constrained": options.vbr = "constrained"
        default: throw OutputError("Invalid vbr")
        }
        if let text = settings["packet_loss"] {
            guard let value = Int(text), (0...100).contains(value) else { throw OutputError("Invalid packet loss") }
            options.packetLoss = value
        }
        switch (settings["opustags"] ?? "no").lowercased() {
        case "yes", "true", "1": options.chaining = true
        case "no", "false", "0": break
        case let other: throw OutputError("opustags: \"\(other)\" is not a boolean (yes or no)")
        }
        return options
    }

    /// The `Content-Type` MPD sends for this encoder's stream.
    package var contentType: String {
        switch self {
        case .wave: "audio/wav"
        case .flac: "audio/flac"
        case .lame: "audio/mpeg"
        case .vorbis, .opus: "audio/ogg"
        }
    }

    /// Whether the encoder carries each song's tags in the stream itself (a new Ogg stream per
    /// song, as MPD's `vorbis` and `opus` with `opustags` do); the others get ICY metadata.
    package var carriesTags: Bool {
        switch self {
        case .vorbis: true
        case .opus(let options): options.chaining
        case .wave, .flac, .lame: false
        }
    }

    /// Whether the stream is Ogg: packets are put in pages, and a new song's tags begin a new
    /// logical stream.
    var isOgg: Bool {
        switch self {
        case .vorbis, .opus: true
        case .wave, .flac, .lame: false
        }
    }

    /// The format the output takes from the pipeline for a source in `format`, which only
    /// converts sample types: `wave` keeps 16, 24 and 32-bit samples and makes floats 16-bit;
    /// `flac` keeps 16 and 24 bits and makes the rest 24-bit (both as MPD's encoders choose);
    /// the lossy encoders take 16-bit (`lame`) or float samples at the source's rate and
    /// channels and resample themselves (``encoderFormat(for:)``).
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
        case .opus:
            result.sample = format.sample == .s16 ? .s16 : .float
        case .vorbis:
            result.sample = .float
        }
        return result
    }

    /// What the encoder itself is fed, for an output opened in `format`, as MPD's encoders
    /// choose it: `lame` 16-bit stereo or mono at a rate MP3 has (44.1 kHz otherwise); `opus`
    /// 48 kHz, mono for more than two channels (as MPD's does); `vorbis` the source's rate and
    /// channels (at most 8, what FFmpeg's libvorbis takes); `wave` and `flac` what they take.
    func encoderFormat(for format: PCMFormat) -> PCMFormat {
        var result = format
        switch self {
        case .wave, .flac, .vorbis:
            result.channels = min(result.channels, 8)
        case .lame:
            result.channels = min(result.channels, 2)
            if ![8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000].contains(result.sampleRate) {
                result.sampleRate = 44100
            }
        case .opus:
            result.sampleRate = 48000
            if result.channels > 2 { result.channels = 1 }
        }
        return result
    }
}
