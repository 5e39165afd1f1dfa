import CFFmpeg

/// A song's MixRamp profile from its tags (`MIXRAMP_START`, `MIXRAMP_END`: Vorbis comments,
/// ID3 `TXXX`, APE; FFmpeg matches the keys case-insensitively), as MPD's decoders hand them
/// to its player for ``CrossfadeSettings/overlapChunks(chunkSeconds:gainDB:previousGainDB:mixRampStart:mixRampPreviousEnd:maximumChunks:)``.
package struct MixRampInfo: Sendable, Equatable {
    /// How loud the song gets from its start: `dB seconds` pairs, `;`-separated.
    package var start: String?
    /// How loud it is before its end, in the same form.
    package var end: String?

    /// Creates a profile.
    package init(start: String? = nil, end: String? = nil) {
        self.start = start
        self.end = end
    }

    /// Reads the tags; stream tags (Ogg) win over the container's.
    static func read(format: UnsafeMutablePointer<AVFormatContext>, stream: UnsafeMutablePointer<AVStream>)
        -> MixRampInfo
    {
        var info = MixRampInfo()
        for dictionary in [stream.pointee.metadata, format.pointee.metadata] {
            info.start = info.start ?? value(dictionary, "MIXRAMP_START")
            info.end = info.end ?? value(dictionary, "MIXRAMP_END")
        }
        return info
    }

    private static func value(_ dictionary: OpaquePointer?, _ key: String) -> String? {
        guard let entry = av_dict_get(dictionary, key, nil, 0), let text = entry.pointee.value else { return nil }
        return String(cString: text)
    }
}
