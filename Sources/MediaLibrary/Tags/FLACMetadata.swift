import CFFmpeg
import MusicModel

/// Reads a plain FLAC file's metadata from its metadata blocks, without FFmpeg.
///
/// Everything a scan needs of a FLAC file is in the blocks before the audio: STREAMINFO (rate,
/// channels, depth, length), VORBIS_COMMENT and PICTURE. Opening the file through libavformat
/// as well (allocating a context, its options and the stream, parsing the same blocks again)
/// was the larger part of reading one, and a rescan of 10,000 FLAC files took twice MPD's
/// time, which reads them with libFLAC's metadata reader alone.
///
/// It gives exactly what the FFmpeg path (``MetadataReader``) gives, or `nil` when it cannot
/// be sure of that, and that path reads the file: an ID3v2 tag in front, a STREAMINFO without
/// a rate or a length, a comment block that does not parse, a picture of a type FFmpeg might
/// not accept, or blocks cut short.
enum FLACMetadata {
    /// The MIME types of an embedded picture that FFmpeg's FLAC demuxer always turns into an
    /// attached-picture stream (it compares them case-sensitively); with any other, FFmpeg
    /// decides.
    private static let pictureTypes: Set<String> = ["image/jpeg", "image/jpg", "image/png"]

    /// Whether the PICTURE block at `body` is one FFmpeg's demuxer makes a stream of for sure:
    /// a common MIME type and picture data that fits in the block.
    private static func isWholePicture(_ file: FileBytes, at body: Int, length: Int) -> Bool {
        guard length >= 8, let start = file.readExactly(at: body, count: 8) else { return false }
        let mimeLength = start.bigEndian(at: 4, width: 4)
        guard mimeLength <= 64, 12 + mimeLength <= length,
            let mime = file.readExactly(at: body + 8, count: mimeLength + 4),
            pictureTypes.contains(String(decoding: mime[..<mimeLength], as: UTF8.self))
        else { return false }
        let descriptionLength = mime.bigEndian(at: mimeLength, width: 4)
        let sizes = body + 12 + mimeLength + descriptionLength
        guard descriptionLength <= length, sizes + 20 <= body + length,
            let dimensions = file.readExactly(at: sizes, count: 20)
        else { return false }
        let dataLength = dimensions.bigEndian(at: 16, width: 4)
        return dataLength > 0 && sizes + 20 + dataLength <= body + length
    }

    /// The file's metadata, or `nil` when the FFmpeg path must read it.
    static func read(_ file: FileBytes, tags wanted: TagMask) -> FileMetadata? {
        guard let magic = file.readExactly(at: 0, count: 4), magic.hasASCII("fLaC", at: 0) else { return nil }
        var offset = 4
        var streamInfo: (rate: Int, channels: Int, bits: Int, samples: Int)?
        var comments: [(key: String, value: String)] = []
        var hasPicture = false
        while true {
            guard let header = file.readExactly(at: offset, count: 4) else { return nil }
            let length = header.bigEndian(at: 1, width: 3)
            let body = offset + 4
            switch header[0] & 0x7F {
            case 0:
                guard streamInfo == nil, length == 34, let block = file.readExactly(at: body, count: 18) else {
                    return nil
                }
                streamInfo = Self.streamInfo(block)
            case 4:
                guard length <= VorbisCommentScanner.maximumBlockSize,
                    let block = file.readExactly(at: body, count: length),
                    let parsed = VorbisCommentScanner.parse(block[...])
                else { return nil }
                // The FFmpeg path reads the first comment block only, as libFLAC does.
                if comments.isEmpty { comments = parsed }
            case 6:
                guard isWholePicture(file, at: body, length: length) else { return nil }
                hasPicture = true
            default:
                break
            }
            if header[0] & 0x80 != 0 { break }
            offset = body + length
        }
        guard let info = streamInfo, info.rate > 0, info.samples > 0 else { return nil }
        var collector = TagCollector(wanted: wanted)
        if wanted != .none {
            for (key, value) in comments {
                if let type = TagNames.vorbis(key) { collector.add(type, value) }
            }
        }
        let facts = AudioFormatName.StreamFacts(
            codecID: AV_CODEC_ID_FLAC, sampleRate: info.rate, channels: info.channels, codedBits: info.bits,
            rawBits: 0, sampleFormat: AV_SAMPLE_FMT_NONE)
        // FFmpeg's stream: `samples` in a time base of 1/rate, which the FFmpeg path multiplies
        // out the same way.
        return FileMetadata(
            tags: collector.tags, duration: Double(info.samples) * 1 / Double(info.rate),
            audioFormat: AudioFormatName.describe(facts), hasEmbeddedPicture: hasPicture)
    }

    /// Rate, channels, depth and total samples from the first 18 bytes of STREAMINFO.
    private static func streamInfo(_ block: [UInt8]) -> (rate: Int, channels: Int, bits: Int, samples: Int)? {
        guard let (rate, channels, bits) = block.withUnsafeBufferPointer(AudioFormatName.flacStreamInfo) else {
            return nil
        }
        let samples = (Int(block[13]) & 0x0F) << 32 | block.bigEndian(at: 14, width: 4)
        return (rate, channels, bits, samples)
    }
}
