import CFFmpeg

/// A song's ReplayGain values, as its tags give them, for the `replaygain` modes.
///
/// Each value is optional because files often carry only track gain, or gain without peak;
/// MPD's `replaygain_missing_preamp` applies when the mode's gain is missing, and the peak only
/// limits the gain (`replaygain_limit`) when it is known.
package struct ReplayGainInfo: Sendable, Equatable {
    /// Track gain in dB (relative to the ReplayGain reference loudness, 89 dB SPL).
    package var trackGain: Double?
    /// Track peak as a linear sample value (1.0 is full scale).
    package var trackPeak: Double?
    /// Album gain in dB.
    package var albumGain: Double?
    /// Album peak, linear.
    package var albumPeak: Double?

    /// Creates the values.
    package init(trackGain: Double? = nil, trackPeak: Double? = nil, albumGain: Double? = nil, albumPeak: Double? = nil)
    {
        self.trackGain = trackGain
        self.trackPeak = trackPeak
        self.albumGain = albumGain
        self.albumPeak = albumPeak
    }

    /// Whether no value is known, so the song counts as having no ReplayGain at all.
    package var isEmpty: Bool { trackGain == nil && trackPeak == nil && albumGain == nil && albumPeak == nil }

    /// Reads the values from tags: `REPLAYGAIN_*` (Vorbis comments, APE, ID3 `TXXX`, MP4
    /// freeform atoms; FFmpeg matches the keys case-insensitively), then Opus's `R128_*_GAIN`
    /// (Q7.8 dB relative to −23 LUFS, which MPD converts to the ReplayGain reference by adding
    /// 5 dB), then the side data some FFmpeg demuxers attach to the stream. Stream tags (Ogg)
    /// win over the container's.
    static func read(format: UnsafeMutablePointer<AVFormatContext>, stream: UnsafeMutablePointer<AVStream>)
        -> ReplayGainInfo?
    {
        var info = ReplayGainInfo()
        for dictionary in [stream.pointee.metadata, format.pointee.metadata] {
            info.trackGain = info.trackGain ?? decibels(dictionary, "REPLAYGAIN_TRACK_GAIN")
            info.trackPeak = info.trackPeak ?? number(dictionary, "REPLAYGAIN_TRACK_PEAK")
            info.albumGain = info.albumGain ?? decibels(dictionary, "REPLAYGAIN_ALBUM_GAIN")
            info.albumPeak = info.albumPeak ?? number(dictionary, "REPLAYGAIN_ALBUM_PEAK")
        }
        for dictionary in [stream.pointee.metadata, format.pointee.metadata] {
            info.trackGain = info.trackGain ?? r128(dictionary, "R128_TRACK_GAIN")
            info.albumGain = info.albumGain ?? r128(dictionary, "R128_ALBUM_GAIN")
        }
        if let side = tonearm_stream_replaygain(stream) {
            // AVReplayGain: gains in microbels (1/100000 dB, INT32_MIN = unknown), peaks in
            // 1/100000 of full scale (0 = unknown).
            let data = side.pointee
            if data.track_gain != Int32.min { info.trackGain = info.trackGain ?? Double(data.track_gain) / 100_000 }
            if data.track_peak != 0 { info.trackPeak = info.trackPeak ?? Double(data.track_peak) / 100_000 }
            if data.album_gain != Int32.min { info.albumGain = info.albumGain ?? Double(data.album_gain) / 100_000 }
            if data.album_peak != 0 { info.albumPeak = info.albumPeak ?? Double(data.album_peak) / 100_000 }
        }
        return info.isEmpty ? nil : info
    }

    private static func value(_ dictionary: OpaquePointer?, _ key: String) -> String? {
        guard let entry = av_dict_get(dictionary, key, nil, 0), let text = entry.pointee.value else { return nil }
        return String(cString: text)
    }

    /// `-6.50 dB`, `+1.2dB`, `3.1`: a leading decimal number, as MPD's `ParseReplayGainTag` takes it.
    static func decibels(_ text: String) -> Double? {
        let trimmed = text.drop { $0 == " " || $0 == "\t" }
        var end = trimmed.startIndex
        for (index, character) in zip(trimmed.indices, trimmed) {
            let isSign = (character == "+" || character == "-") && index == trimmed.startIndex
            guard isSign || character.isASCII && (character.isNumber || character == ".") else { break }
            end = trimmed.index(after: index)
        }
        guard let number = Double(trimmed[trimmed.startIndex..<end]), number.isFinite else { return nil }
        return number
    }

    private static func decibels(_ dictionary: OpaquePointer?, _ key: String) -> Double? {
        value(dictionary, key).flatMap(decibels)
    }

    private static func number(_ dictionary: OpaquePointer?, _ key: String) -> Double? {
        value(dictionary, key).flatMap(decibels).flatMap { $0 >= 0 ? $0 : nil }
    }

    private static func r128(_ dictionary: OpaquePointer?, _ key: String) -> Double? {
        guard let text = value(dictionary, key), let q78 = Int(text.trimmingPrefix(" ")) else { return nil }
        return Double(q78) / 256 + 5
    }
}
