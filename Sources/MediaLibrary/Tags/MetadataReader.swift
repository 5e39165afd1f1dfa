package import CFFmpeg
package import MusicModel

/// Why a file's metadata could not be read.
package struct MetadataReadError: Error, CustomStringConvertible, Equatable {
    /// The file.
    package let path: String
    /// What went wrong, for the log.
    package let reason: String

    /// Creates an error.
    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `path: reason`.
    package var description: String { "\(path): \(reason)" }
}

/// Reads a song file's tags, duration, audio format and embedded picture without decoding audio.
///
/// libavformat opens the file and reads the container header; `avformat_find_stream_info`,
/// which decodes frames and halves the scan rate (WAV: 50 times slower), runs only when the
/// header leaves the sample rate or channel count unknown (ADTS AAC, broken files). Vorbis
/// comments and ID3v2 tags are read natively, because FFmpeg merges or drops their repeated
/// values; every other tag format comes from FFmpeg's metadata dictionaries.
package enum MetadataReader {
    /// Reads `path`'s metadata, keeping only the tags in `wanted`.
    ///
    /// Throws ``MetadataReadError`` when FFmpeg cannot open the file, it has no audio stream, or
    /// its audio parameters cannot be determined.
    package static func read(path: String, tags wanted: TagMask) throws -> FileMetadata {
        // Lazily: a scan asks this of every file, and `map` would build an array each time.
        if path.utf8.suffix(5).lazy.map({ $0 | 0x20 }).elementsEqual(".flac".utf8), let file = FileBytes(path: path),
            let metadata = FLACMetadata.read(file, tags: wanted)
        {
            return metadata
        }
        return try readThroughFFmpeg(path: path, tags: wanted)
    }

    /// ``read(path:tags:)`` with FFmpeg opening the file whatever its format: what the native
    /// FLAC reader must agree with.
    static func readThroughFFmpeg(path: String, tags wanted: TagMask) throws -> FileMetadata {
        try withInput(path) { context, file in
            let stream = try audioStream(context, path: path)
            let formatName = String(cString: context.pointee.iformat.pointee.name)
            let codecID = stream.pointee.codecpar.pointee.codec_id
            var mpeg: MPEGAudioHeader?
            if let file, [AV_CODEC_ID_MP1, AV_CODEC_ID_MP2, AV_CODEC_ID_MP3].contains(codecID) {
                mpeg = MPEGAudioHeader.find(in: file, from: ID3v2Scanner.tagEnd(in: file))
            }
            var facts = streamFacts(stream, mpeg: mpeg)
            var audioFormat = AudioFormatName.describe(facts)
            if audioFormat == nil {
                // The header did not say (ADTS AAC, a decoder that declares no sample format,
                // a broken file): let FFmpeg decode the first frames.
                avformat_find_stream_info(context, nil)
                facts = streamFacts(stream, mpeg: mpeg)
                guard facts.sampleRate > 0, facts.channels > 0 else {
                    throw MetadataReadError(path: path, reason: "unrecognised audio data")
                }
                audioFormat = AudioFormatName.describe(facts)
            }
            var collector = TagCollector(wanted: wanted)
            collectTags(&collector, context: context, stream: stream, formatName: formatName, file: file)
            return FileMetadata(
                tags: collector.tags,
                duration: duration(context, stream: stream, mpeg: mpeg, file: file),
                audioFormat: audioFormat,
                hasEmbeddedPicture: firstPicture(context) != nil
            )
        }
    }

    /// The first embedded picture (an attached-picture stream's packet) and its MIME type, or nil.
    package static func readPicture(path: String) throws -> (data: [UInt8], mimeType: String?)? {
        try withInput(path) { context, _ in
            guard let stream = firstPicture(context) else { return nil }
            let packet = stream.pointee.attached_pic
            guard let data = packet.data, packet.size > 0 else { return nil }
            let bytes = Array(UnsafeBufferPointer(start: data, count: Int(packet.size)))
            return (bytes, mimeType(stream.pointee.codecpar.pointee.codec_id))
        }
    }

    /// Every raw metadata key and value of the file, for `readcomments`: the Vorbis comments as
    /// stored for FLAC and Ogg, the TXXX frames of an MP3's ID3v2 tag (as MPD reports them), else
    /// FFmpeg's format and audio-stream metadata. Like MPD, only keys
    /// of the form `[A-Za-z][A-Za-z_-]*` and values without control characters are returned.
    package static func readComments(path: String) throws -> [(key: String, value: String)] {
        try withInput(path) { context, file in
            let stream = try audioStream(context, path: path)
            let formatName = String(cString: context.pointee.iformat.pointee.name)
            var pairs: [(key: String, value: String)]
            if isVorbisCommentContainer(formatName), let file, let comments = VorbisCommentScanner.comments(in: file) {
                pairs = comments
            } else if formatName == "mp3", let file, let frames = ID3v2Scanner.frames(in: file) {
                // MPD's ID3 scanner reports the TXXX frames as its name/value pairs.
                pairs = frames.compactMap { frame in
                    guard frame.id == "TXXX", let value = frame.values.first else { return nil }
                    return (frame.description, value)
                }
            } else {
                pairs = entries(context.pointee.metadata) + entries(stream.pointee.metadata)
            }
            return pairs.filter { isCommentKey($0.key) && !$0.value.unicodeScalars.contains { $0.value < 0x20 } }
        }
    }

    // MARK: - FFmpeg input

    /// Set once, before the first file: a scan of broken files must not flood stderr.
    private static let loggingSilenced: Void = av_log_set_level(AV_LOG_QUIET)

    /// Opens `path` (as a `file:` URL, so a colon in a name is no protocol), runs `body` with the
    /// input and the file for the native tag readers, and closes the input on every path.
    private static func withInput<T>(
        _ path: String, _ body: (UnsafeMutablePointer<AVFormatContext>, FileBytes?) throws -> T
    ) throws -> T {
        _ = loggingSilenced
        var context: UnsafeMutablePointer<AVFormatContext>?
        let url = "file:" + path
        var status: Int32 = -1
        let file = FileBytes(path: path)
        if let file, let demuxer = knownDemuxer(path, file: file) {
            status = avformat_open_input(&context, url, demuxer, nil)
        }
        if status < 0 {
            status = avformat_open_input(&context, url, nil, nil)
        }
        guard status >= 0, let opened = context else {
            throw MetadataReadError(path: path, reason: "FFmpeg cannot open it: \(errorText(status))")
        }
        defer { avformat_close_input(&context) }
        return try body(opened, file)
    }

    /// The demuxer for a file whose suffix and first bytes agree on a common format.
    ///
    /// Probing reads and scores the start of the file against every demuxer and costs three
    /// quarters of the time of opening a FLAC or MP3 file; the magic-number check keeps a file
    /// with a misleading suffix on the probing path.
    private static func knownDemuxer(_ path: String, file: FileBytes) -> UnsafePointer<AVInputFormat>? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        let suffix = path[path.index(after: dot)...].lowercased()
        let name: String
        let matches: ([UInt8]) -> Bool
        switch suffix {
        case "mp3":
            name = "mp3"
            matches = { $0.hasASCII("ID3", at: 0) || ($0[0] == 0xFF && $0[1] & 0xE0 == 0xE0) }
        case "flac":
            name = "flac"
            matches = { $0.hasASCII("fLaC", at: 0) || $0.hasASCII("ID3", at: 0) }
        case "ogg", "oga", "opus":
            name = "ogg"
            matches = { $0.hasASCII("OggS", at: 0) }
        case "m4a", "m4b", "mp4":
            name = "mov"
            matches = { $0.hasASCII("ftyp", at: 4) }
        case "wav":
            name = "wav"
            matches = { $0.hasASCII("RIFF", at: 0) && $0.hasASCII("WAVE", at: 8) }
        default:
            return nil
        }
        guard let head = file.readExactly(at: 0, count: 12), matches(head) else {
            return nil
        }
        return av_find_input_format(name)
    }

    /// The first audio stream, as MPD's FFmpeg plugin picks it.
    private static func audioStream(
        _ context: UnsafeMutablePointer<AVFormatContext>, path: String
    ) throws -> UnsafeMutablePointer<AVStream> {
        for index in 0..<Int(context.pointee.nb_streams) {
            if let stream = context.pointee.streams[index],
                stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO
            {
                return stream
            }
        }
        throw MetadataReadError(path: path, reason: "no audio stream")
    }

    /// The first attached-picture stream (cover art), if any.
    private static func firstPicture(_ context: UnsafeMutablePointer<AVFormatContext>) -> UnsafeMutablePointer<
        AVStream
    >? {
        for index in 0..<Int(context.pointee.nb_streams) {
            if let stream = context.pointee.streams[index],
                stream.pointee.disposition & TONEARM_AV_DISPOSITION_ATTACHED_PIC != 0
            {
                return stream
            }
        }
        return nil
    }

    private static func errorText(_ code: Int32) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(AV_ERROR_MAX_STRING_SIZE)) { buffer in
            av_strerror(code, buffer.baseAddress, buffer.count)
            return String(cString: buffer.baseAddress!)
        }
    }

    /// A dictionary's entries in order.
    private static func entries(_ dictionary: OpaquePointer?) -> [(key: String, value: String)] {
        var result: [(key: String, value: String)] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>?
        while let next = av_dict_get(dictionary, "", entry, AV_DICT_IGNORE_SUFFIX) {
            result.append((String(cString: next.pointee.key), String(cString: next.pointee.value)))
            entry = next
        }
        return result
    }

    // MARK: - Facts

    /// The stream's audio parameters, filled in from the FLAC STREAMINFO or MPEG frame header
    /// where libavformat's header parsing leaves them out.
    private static func streamFacts(_ stream: UnsafeMutablePointer<AVStream>, mpeg: MPEGAudioHeader?)
        -> AudioFormatName.StreamFacts
    {
        let parameters = stream.pointee.codecpar.pointee
        var facts = AudioFormatName.StreamFacts(
            codecID: parameters.codec_id,
            sampleRate: Int(parameters.sample_rate),
            channels: Int(parameters.ch_layout.nb_channels),
            codedBits: Int(parameters.bits_per_coded_sample),
            rawBits: Int(parameters.bits_per_raw_sample),
            sampleFormat: AVSampleFormat(rawValue: parameters.format)
        )
        if parameters.codec_id == AV_CODEC_ID_FLAC, let extradata = parameters.extradata,
            let info = AudioFormatName.flacStreamInfo(
                UnsafeBufferPointer(start: extradata, count: Int(parameters.extradata_size)))
        {
            (facts.sampleRate, facts.channels, facts.codedBits) = info
        }
        if let mpeg, facts.sampleRate <= 0 || facts.channels <= 0 {
            facts.sampleRate = mpeg.sampleRate
            facts.channels = mpeg.channels
        }
        return facts
    }

    /// Stream duration × time base, else the container's duration, else (MP3 without a Xing
    /// header, before any frame is read) the audio bytes over the first frame's bit rate.
    private static func duration(
        _ context: UnsafeMutablePointer<AVFormatContext>, stream: UnsafeMutablePointer<AVStream>,
        mpeg: MPEGAudioHeader?, file: FileBytes?
    ) -> Double? {
        let timeBase = stream.pointee.time_base
        if stream.pointee.duration != TONEARM_AV_NOPTS_VALUE, stream.pointee.duration > 0, timeBase.den > 0 {
            return Double(stream.pointee.duration) * Double(timeBase.num) / Double(timeBase.den)
        }
        if context.pointee.duration != TONEARM_AV_NOPTS_VALUE, context.pointee.duration > 0 {
            return Double(context.pointee.duration) / Double(AV_TIME_BASE)
        }
        if let mpeg, let file, mpeg.bitRate > 0 {
            var audioBytes = file.size - mpeg.offset
            if audioBytes > 128, file.read(at: file.size - 128, count: 3).hasASCII("TAG", at: 0) { audioBytes -= 128 }
            return audioBytes > 0 ? Double(audioBytes) * 8 / Double(mpeg.bitRate) : nil
        }
        return nil
    }

    private static func mimeType(_ codec: AVCodecID) -> String? {
        switch codec {
        case AV_CODEC_ID_MJPEG: "image/jpeg"
        case AV_CODEC_ID_PNG: "image/png"
        case AV_CODEC_ID_GIF: "image/gif"
        case AV_CODEC_ID_BMP: "image/bmp"
        case AV_CODEC_ID_WEBP: "image/webp"
        case AV_CODEC_ID_TIFF: "image/tiff"
        default: nil
        }
    }

    // MARK: - Tags

    private static func isVorbisCommentContainer(_ formatName: String) -> Bool {
        formatName == "flac" || formatName == "ogg"
    }

    /// Tags from the native reader that keeps repeated values when there is one for the format,
    /// else from FFmpeg's container and stream metadata; in the order MPD's decoder plugin for
    /// the format reports them (see ``TagNames``), which is the order song blocks print.
    private static func collectTags(
        _ collector: inout TagCollector, context: UnsafeMutablePointer<AVFormatContext>,
        stream: UnsafeMutablePointer<AVStream>, formatName: String, file: FileBytes?
    ) {
        guard collector.wanted != .none else { return }
        if let file, isVorbisCommentContainer(formatName), let comments = VorbisCommentScanner.comments(in: file) {
            // MPD's FLAC, Vorbis and Opus plugins report the comments in file order.
            for (key, value) in comments {
                if let type = TagNames.vorbis(key) { collector.add(type, value) }
            }
            return
        }
        if let file, formatName == "mp3", let frames = ID3v2Scanner.frames(in: file) {
            for frame in frames.stablySorted(by: TagNames.id3Rank) {
                guard let type = TagNames.id3(frame) else { continue }
                for value in frame.values {
                    collector.add(type, type == .genre ? ID3Genres.resolve(value) : value)
                }
            }
            return
        }
        let xiphNames = isVorbisCommentContainer(formatName)
        let dictionaries = [entries(context.pointee.metadata), entries(stream.pointee.metadata)]
        let mapped = dictionaries.map { dictionary in
            dictionary.compactMap { key, value in
                TagNames.ffmpeg(key, xiphNames: xiphNames).map { (key: key, type: $0, value: value) }
            }
        }
        let ordered: [(key: String, type: TagType, value: String)]
        if xiphNames {
            // Vorbis comments FFmpeg read for us: file order, as above.
            ordered = mapped.flatMap { $0 }
        } else if TagNames.sndfileFormats.contains(formatName) {
            ordered = mapped.flatMap { $0 }.stablySorted { TagNames.sndfileRank($0.type, key: $0.key) }
        } else {
            // MPD's FFmpeg plugin scans the container's dictionary, then the stream's.
            ordered = mapped.flatMap { $0.stablySorted { TagNames.ffmpegRank($0.key) } }
        }
        for entry in ordered { collector.add(entry.type, entry.value) }
    }

    /// The tags of a stream FFmpeg opened for playing (a remote file, a station), read from its
    /// container's and audio stream's metadata as for a file without a native reader: the
    /// player shows them for a stream, whose tags no database holds.
    package static func streamTags(
        context: UnsafeMutablePointer<AVFormatContext>, stream: UnsafeMutablePointer<AVStream>
    ) -> [TagValue] {
        var collector = TagCollector(wanted: .all)
        let formatName = context.pointee.iformat.map { String(cString: $0.pointee.name) } ?? ""
        collectTags(&collector, context: context, stream: stream, formatName: formatName, file: nil)
        return collector.tags
    }

    /// MPD's `readcomments` key syntax: a letter, then letters, `_` and `-`.
    private static func isCommentKey(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, first.isASCIILetter else { return false }
        return key.unicodeScalars.allSatisfy { $0.isASCIILetter || $0 == "_" || $0 == "-" }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
