import CFFmpeg

/// What the decoder can play: the file suffixes and MIME types of the installed FFmpeg.
///
/// Tonearm decodes everything through FFmpeg, so it reports one plugin, `ffmpeg`, whose lists
/// are read from FFmpeg itself rather than written down: a distribution's FFmpeg build decides.
package struct DecoderCatalog: Sendable, Equatable {
    /// The decoder plugin's name.
    package let plugin: String
    /// File name suffixes, lowercase, sorted, without duplicates.
    package let suffixes: [String]
    /// MIME types, sorted, without duplicates.
    package let mimeTypes: [String]

    /// Creates a catalog from explicit lists.
    package init(plugin: String, suffixes: [String], mimeTypes: [String]) {
        self.plugin = plugin
        self.suffixes = suffixes
        self.mimeTypes = mimeTypes
    }

    /// Reads the catalog of the linked FFmpeg: every demuxer's extensions and MIME types, the
    /// usual names of audio formats whose demuxer finds them by probing instead of declaring
    /// extensions (WAV, AIFF, Ogg Opus, …), and the suffixes of formats FFmpeg plays through a
    /// codec rather than a named demuxer (DSD and DTS), as MPD's FFmpeg plugin does.
    package static func ffmpeg() -> DecoderCatalog {
        var suffixes = Set<String>()
        var mimeTypes = Set<String>()
        var demuxerState: UnsafeMutableRawPointer?
        while let demuxer = av_demuxer_iterate(&demuxerState) {
            if let extensions = demuxer.pointee.extensions {
                suffixes.formUnion(commaList(String(cString: extensions)).map { $0.lowercased() })
            }
            if let types = demuxer.pointee.mime_type {
                mimeTypes.formUnion(commaList(String(cString: types)))
            }
            if let name = demuxer.pointee.name {
                for demuxerName in commaList(String(cString: name)) {
                    guard let known = probedAudioFormats[demuxerName] else { continue }
                    suffixes.formUnion(known.suffixes)
                    mimeTypes.formUnion(known.mimeTypes)
                }
            }
        }
        var codecState: UnsafeMutableRawPointer?
        while let codec = av_codec_iterate(&codecState) {
            guard av_codec_is_decoder(codec) != 0, let name = codec.pointee.name else { continue }
            let codecName = String(cString: name)
            if codecName.hasPrefix("dsd_") {
                suffixes.formUnion(["dff", "dsf"])
            } else if codecName == "dca" {
                suffixes.insert("dts")
            }
        }
        return DecoderCatalog(plugin: "ffmpeg", suffixes: suffixes.sorted(), mimeTypes: mimeTypes.sorted())
    }

    /// Audio formats by FFmpeg demuxer name, for demuxers that list few or no extensions or
    /// MIME types of their own.
    private static let probedAudioFormats: [String: (suffixes: [String], mimeTypes: [String])] = [
        "wav": (["wav"], ["audio/wav", "audio/x-wav"]),
        "w64": (["w64"], []),
        "aiff": (["aif", "aiff", "aifc"], ["audio/aiff", "audio/x-aiff"]),
        "ogg": (["ogg", "oga", "opus", "spx"], ["audio/ogg", "audio/opus", "application/ogg"]),
        "flac": (["flac"], ["audio/flac", "audio/x-flac"]),
        "mp3": (["mp3"], ["audio/mpeg"]),
        "mov": (["m4a", "m4b", "mp4", "alac"], ["audio/mp4", "audio/x-m4a"]),
        "matroska": (["mka", "mkv", "webm"], ["audio/x-matroska", "audio/webm"]),
        "wv": (["wv"], ["audio/x-wavpack"]),
        "ape": (["ape"], ["audio/x-ape"]),
        "asf": (["wma", "asf"], ["audio/x-ms-wma"]),
        "au": (["au", "snd"], ["audio/basic"]),
        "caf": (["caf"], ["audio/x-caf"]),
    ]

    private static func commaList(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0.filter { $0 != " " }) }.filter { !$0.isEmpty }
    }
}

/// Versions of the FFmpeg libraries Tonearm is linked with, for `tonearm --version`.
package enum FFmpegLibrary {
    /// `libavformat`'s version as `major.minor.micro`.
    package static var formatVersion: String { versionString(avformat_version()) }
    /// `libavcodec`'s version as `major.minor.micro`.
    package static var codecVersion: String { versionString(avcodec_version()) }

    private static func versionString(_ packed: UInt32) -> String {
        "\(packed >> 16).\((packed >> 8) & 0xFF).\(packed & 0xFF)"
    }
}
