import Glibc

extension PCMFormat {
    /// The format the decoder will give for a file whose database entry names `stored`, when
    /// the name and the file's suffix leave no doubt; `nil` otherwise.
    ///
    /// The outputs open in it while FFmpeg opens the file (``DecoderThread``), so a pipe's
    /// command starts or an ALSA device is set up meanwhile rather than after. `stored` is
    /// MPD's name, which is what MPD's decoders give, not always FFmpeg's: MP3 is `24` there
    /// and float here, Opus `16` there and float here, and `32` stands for 24-bit PCM in a
    /// WAV as well as for 32-bit. A wrong guess costs a second opening (the device is opened
    /// again in the real format), so where the suffix does not tell, nothing is guessed; for a
    /// WAV named 32 the depth is read from the file's `fmt ` chunk.
    init?(expectedFrom stored: String, path: String) {
        let parts = stored.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let rate = Int(parts[0]), rate > 0, let channels = Int(parts[2]), channels > 0,
            let dot = path.lastIndex(of: "."), !path[dot...].contains("/")
        else { return nil }
        let suffix = path[path.index(after: dot)...].lowercased()
        let sample: Sample
        switch parts[1] {
        case "f":
            sample = .float
        case "8":
            sample = .s16  // FFmpeg gives 8-bit audio as 16-bit samples
        case "16":
            // Opus is named 16 and decodes to float, always at 48 kHz: at that rate a container
            // that may hold Opus does not tell (at another it holds FLAC, ALAC or PCM).
            switch suffix {
            case "opus": sample = .float
            case "ogg", "oga", "ogx", "mka", "mkv", "webm", "caf", "m4a", "m4b", "mp4", "mov", "3gp":
                guard rate != 48000 else { return nil }
                sample = .s16
            default: sample = .s16
            }
        case "24":
            switch suffix {
            case "mp3", "mp2", "mp1", "mpga", "mpa": sample = .float  // MPEG audio: MPD's libmad gives 24
            case "flac", "wv", "ogg", "oga": sample = .s24  // FLAC or WavPack of 17 to 24 bits
            default: return nil
            }
        case "32":
            switch suffix {
            case "flac", "wv", "ogg", "oga": sample = .s32  // deeper than 24 bits
            case "wav":
                // 24-bit PCM is named 32 too.
                switch Self.waveDepth(path) {
                case 24: sample = .s24
                case 32: sample = .s32
                default: return nil
                }
            default: return nil
            }
        default:
            return nil
        }
        self.init(sampleRate: rate, sample: sample, channels: channels)
    }

    /// The bits per sample of an integer PCM WAV file, from its `fmt ` chunk in the file's
    /// first 4 KiB: format tag 1, or the extensible header (tag 0xFFFE, which FFmpeg writes
    /// for more than 16 bits) with the PCM sub-format and every bit of the container valid;
    /// nil for anything else (floats, 24 valid bits in 32, a file that cannot be read), whose
    /// decoded format FFmpeg works out its own way.
    static func waveDepth(_ path: String) -> Int? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: 4096)
        let count = header.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count >= 36, header[0..<4].elementsEqual("RIFF".utf8), header[8..<12].elementsEqual("WAVE".utf8)
        else { return nil }
        func little(_ offset: Int, _ size: Int) -> Int {
            (0..<size).reduce(0) { $0 | Int(header[offset + $1]) << (8 * $1) }
        }
        var offset = 12
        while offset + 8 <= count {
            let size = little(offset + 4, 4)
            guard header[offset..<offset + 4].elementsEqual("fmt ".utf8) else {
                offset += 8 + size + size % 2  // chunks are padded to an even size
                continue
            }
            let data = offset + 8
            guard size >= 16, data + 16 <= count else { return nil }
            let bits = little(data + 14, 2)
            switch little(data, 2) {
            case 1:
                return bits
            case 0xFFFE:
                // The sub-format GUID is KSDATAFORMAT_SUBTYPE_PCM: tag 1, then the base GUID.
                let base: [UInt8] = [0, 0, 0, 0, 0x10, 0, 0x80, 0, 0, 0xAA, 0, 0x38, 0x9B, 0x71]
                guard size >= 40, data + 40 <= count, little(data + 18, 2) == bits, little(data + 24, 2) == 1,
                    header[(data + 26)..<(data + 40)].elementsEqual(base)
                else { return nil }
                return bits
            default:
                return nil
            }
        }
        return nil
    }
}
