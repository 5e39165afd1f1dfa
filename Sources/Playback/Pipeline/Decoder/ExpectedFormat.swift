extension PCMFormat {
    /// The format the decoder will give for a file whose database entry names `stored`, when
    /// the name and the file's suffix leave no doubt; `nil` otherwise.
    ///
    /// The outputs open in it while FFmpeg opens the file (``DecoderThread``), so a pipe's
    /// command starts or an ALSA device is set up meanwhile rather than after. `stored` is
    /// MPD's name, which is what MPD's decoders give, not always FFmpeg's: MP3 is `24` there
    /// and float here, Opus `16` there and float here, and `32` stands for 24-bit PCM in a
    /// WAV as well as for 32-bit. A wrong guess costs a second opening (the device is opened
    /// again in the real format), so where the suffix does not tell, nothing is guessed.
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
            // Opus is named 16 and decodes to float; a container that may hold Opus does not tell.
            switch suffix {
            case "opus": sample = .float
            case "ogg", "oga", "ogx", "mka", "mkv", "webm", "caf": return nil
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
            default: return nil  // 24-bit PCM is named 32 too
            }
        default:
            return nil
        }
        self.init(sampleRate: rate, sample: sample, channels: channels)
    }
}
