import Foundation
import MusicModel
import Testing

@testable import MediaLibrary

/// Sound files made once per test run with the `ffmpeg` CLI (two seconds of sine), plus files
/// whose tags are written byte by byte, because FFmpeg cannot write repeated Vorbis comments or
/// several values in one ID3v2.4 frame. Other suites copy them (``flac(from:comments:to:)``).
final class Fixtures: Sendable {
    let directory: String

    static let shared: Fixtures? = try? Fixtures()
    static var available: Bool { shared != nil }

    private static let commonTags = [
        "title=Tïtle ☃", "artist=Artist1", "album=Album", "album_artist=AlbArt", "date=2001-02-03",
        "track=3/12", "disc=1/2", "genre=Rock", "composer=Comp", "comment=Cmt",
    ]

    private init() throws {
        directory = NSTemporaryDirectory() + "tonearm-tags-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // The fixtures live as long as the test process; take them with it.
        atexit { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "tonearm-tags-\(getpid())") }
        let stereo = ["-ac", "2", "-ar", "44100"]
        let tags = Self.commonTags.flatMap { ["-metadata", $0] }
        try ffmpeg(stereo + tags, "tagged.flac")
        try ffmpeg(["-ac", "2", "-ar", "96000", "-sample_fmt", "s32", "-bits_per_raw_sample", "24"], "hires.flac")
        try ffmpeg(stereo + tags + ["-id3v2_version", "3"], "v23.mp3")
        try ffmpeg(stereo + tags + ["-id3v2_version", "4"], "v24.mp3")
        try ffmpeg(stereo + tags + ["-c:a", "libvorbis"], "tagged.ogg")
        try ffmpeg(["-ac", "2", "-ar", "48000"] + tags + ["-c:a", "libopus"], "tagged.opus")
        try ffmpeg(stereo + tags + ["-c:a", "aac"], "tagged.m4a")
        try ffmpeg(stereo + tags, "tagged.wav")
        try ffmpeg(["-ac", "1", "-ar", "48000", "-c:a", "pcm_s24le"], "mono24.wav")
        try ffmpeg(stereo + ["-fflags", "+bitexact", "-map_metadata", "-1"], "plain.flac")
        try ffmpeg(stereo + ["-fflags", "+bitexact", "-map_metadata", "-1", "-write_id3v2", "0"], "plain.mp3")
        let cover = [
            "-f", "lavfi", "-i", "color=red:s=16x16:d=1", "-map", "0:a", "-map", "1:v", "-frames:v", "1",
            "-disposition:v", "attached_pic",
        ]
        try ffmpeg(cover + ["-c:v", "mjpeg", "-metadata", "artist=PicArt"] + stereo, "cover.mp3")
        try ffmpeg(cover + ["-c:v", "png"] + stereo, "cover.flac")

        let comments = [
            "ARTIST=A1", "TITLE=T", "ARTIST=A2", "artist=A3", "GENRE=g1;g2", "MUSICBRAINZ_ALBUMID=mbid-1",
            "ALBUMARTISTSORT=Sort, The", "TRACKNUMBER=04", "DISCNUMBER=2/3", "MOVEMENTNAME=Mv",
            "MOVEMENT=2", "DESCRIPTION=  spaced\tout  ", "ALBUM ARTIST=ignored", "LABEL=bad\u{1}value",
        ]
        try flac(from: "plain.flac", comments: comments, to: "multi.flac")
        let frames: [(String, [String])] = [
            ("TPE1", ["A1", "A2"]), ("TIT2", ["T"]), ("TCON", ["(17)", "Pop"]), ("TPE3", ["Cond"]),
            ("TXXX", ["MusicBrainz Album Id", "mbid-1"]), ("TXXX", ["CUSTOM", "x"]), ("TRCK", ["07/12"]),
        ]
        let plain = try Data(contentsOf: URL(fileURLWithPath: path("plain.mp3")))
        try (Self.id3v24(frames, trackID: "track-mbid") + plain).write(to: URL(fileURLWithPath: path("multi.mp3")))
        try Data((0..<20000).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }).write(
            to: URL(fileURLWithPath: path("corrupt.mp3")))
        try "just some text\n".write(toFile: path("notes.txt"), atomically: true, encoding: .utf8)
    }

    func path(_ name: String) -> String { directory + "/" + name }

    private func ffmpeg(_ arguments: [String], _ output: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments =
            ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=f=440:d=2"] + arguments + [path(output)]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// Copies a FLAC file, replacing its VORBIS_COMMENT block with `comments`.
    private func flac(from source: String, comments: [String], to output: String) throws {
        try Self.flac(fromPath: path(source), comments: comments, toPath: path(output))
    }

    /// Copies the FLAC file at `source`, replacing its VORBIS_COMMENT block with `comments`.
    static func flac(fromPath source: String, comments: [String], toPath output: String) throws {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        var offset = 4
        var blocks: [(UInt8, [UInt8])] = []
        while true {
            let last = data[offset] & 0x80 != 0
            let length = Int(data[offset + 1]) << 16 | Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            blocks.append((data[offset] & 0x7F, Array(data[(offset + 4)..<(offset + 4 + length)])))
            offset += 4 + length
            if last { break }
        }
        var body = Self.le32(4) + Array("test".utf8) + Self.le32(comments.count)
        for comment in comments { body += Self.le32(comment.utf8.count) + Array(comment.utf8) }
        blocks = blocks.filter { $0.0 != 4 } + [(4, body)]
        var result = Array("fLaC".utf8)
        for (index, (type, block)) in blocks.enumerated() {
            result.append(type | (index == blocks.count - 1 ? 0x80 : 0))
            result += [UInt8(block.count >> 16 & 0xFF), UInt8(block.count >> 8 & 0xFF), UInt8(block.count & 0xFF)]
            result += block
        }
        try Data(result + data[offset...]).write(to: URL(fileURLWithPath: output))
    }

    /// An ID3v2.4 tag of UTF-8 text frames (values NUL-separated) and a MusicBrainz UFID frame.
    private static func id3v24(_ frames: [(String, [String])], trackID: String) -> Data {
        var body: [UInt8] = []
        func frame(_ id: String, _ data: [UInt8]) {
            body += Array(id.utf8) + syncsafe(data.count) + [0, 0] + data
        }
        for (id, values) in frames { frame(id, [3] + Array(values.joined(separator: "\0").utf8)) }
        frame("UFID", Array("http://musicbrainz.org".utf8) + [0] + Array(trackID.utf8))
        return Data(Array("ID3".utf8) + [4, 0, 0] + syncsafe(body.count) + body)
    }

    private static func syncsafe(_ n: Int) -> [UInt8] { [21, 14, 7, 0].map { UInt8(n >> $0 & 0x7F) } }
    private static func le32(_ n: Int) -> [UInt8] { [0, 8, 16, 24].map { UInt8(n >> $0 & 0xFF) } }
}

@Suite("Reading tags, format and pictures with libavformat", .enabled(if: Fixtures.available, "needs the ffmpeg CLI"))
struct MetadataReaderTests {
    private let fixtures = Fixtures.shared!

    private func read(_ name: String, _ tags: TagMask = .all) throws -> FileMetadata {
        try MetadataReader.read(path: fixtures.path(name), tags: tags)
    }

    private func values(_ metadata: FileMetadata, _ type: TagType) -> [String] {
        metadata.tags.filter { $0.type == type }.map(\.value)
    }

    /// The tags every ffmpeg-written fixture carries, as MPD shows them (`3/12` → `3`).
    private func expectCommonTags(
        _ metadata: FileMetadata, comment: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        var expected: [TagType: [String]] = [
            .title: ["Tïtle ☃"], .artist: ["Artist1"], .album: ["Album"], .date: ["2001-02-03"],
            .genre: ["Rock"], .track: ["3"], .albumArtist: ["AlbArt"], .disc: ["1"], .composer: ["Comp"],
        ]
        if comment { expected[.comment] = ["Cmt"] }
        for (type, want) in expected {
            #expect(values(metadata, type) == want, "\(type.name)", sourceLocation: sourceLocation)
        }
    }

    @Test(
        "FLAC files are read from their metadata blocks, as FFmpeg reads them",
        arguments: ["tagged.flac", "hires.flac", "plain.flac", "cover.flac", "multi.flac"])
    func nativeFLAC(name: String) throws {
        let path = fixtures.path(name)
        let file = try #require(FileBytes(path: path))
        for mask in [TagMask.all, TagMask.none, TagMask([.artist])] {
            let native = try #require(FLACMetadata.read(file, tags: mask), "read natively")
            #expect(native == (try MetadataReader.readThroughFFmpeg(path: path, tags: mask)))
        }
    }

    @Test("every container's names map to MPD tags; the format line matches Debian's MPD")
    func containers() throws {
        let flac = try read("tagged.flac")
        expectCommonTags(flac)
        #expect(flac.audioFormat == "44100:16:2")
        #expect(flac.duration == 2.0)
        #expect(!flac.hasEmbeddedPicture)

        for name in ["v23.mp3", "v24.mp3"] {
            let mp3 = try read(name)
            // FFmpeg stores its comment as TXXX "comment", which MPD does not read as Comment.
            expectCommonTags(mp3, comment: false)
            #expect(mp3.audioFormat == "44100:24:2", "MPD decodes MP3 with libmad: 24 bit")
            #expect(abs((mp3.duration ?? 0) - 2.0375) < 0.001)
        }
        let vorbis = try read("tagged.ogg")
        expectCommonTags(vorbis)
        #expect(vorbis.audioFormat == "44100:f:2")
        let opus = try read("tagged.opus")
        expectCommonTags(opus)
        #expect(opus.audioFormat == "48000:16:2", "MPD decodes Opus with libopus to 16 bit")
        #expect(abs((opus.duration ?? 0) - 2.0065) < 0.001)
        let m4a = try read("tagged.m4a")
        expectCommonTags(m4a)
        #expect(m4a.audioFormat == "44100:f:2")
        #expect(m4a.duration == 2.0)

        let wav = try read("tagged.wav")
        for (type, want) in [
            (TagType.title, "Tïtle ☃"), (.artist, "Artist1"), (.album, "Album"), (.genre, "Rock"),
            (.date, "2001-02-03"),
        ] {
            #expect(values(wav, type) == [want])
        }
        #expect(wav.audioFormat == "44100:16:2")
        #expect(try read("mono24.wav").audioFormat == "48000:32:1", "libsndfile reads 24-bit PCM as 32")
        #expect(try read("hires.flac").audioFormat == "96000:24:2")
    }

    @Test("repeated Vorbis comments stay separate values in file order, with MPD's Xiph names")
    func vorbisMultiValues() throws {
        let metadata = try read("multi.flac")
        #expect(values(metadata, .artist) == ["A1", "A2", "A3"])
        #expect(values(metadata, .genre) == ["g1;g2"], "one value containing ';' is not split")
        #expect(values(metadata, .musicBrainzAlbumID) == ["mbid-1"])
        #expect(values(metadata, .albumArtistSort) == ["Sort, The"])
        #expect(values(metadata, .track) == ["4"])
        #expect(values(metadata, .disc) == ["2"])
        #expect(values(metadata, .movement) == ["Mv"])
        #expect(values(metadata, .movementNumber) == ["2"])
        #expect(values(metadata, .comment) == ["spaced out"], "control characters become spaces, then trimmed")
        #expect(values(metadata, .albumArtist).isEmpty, "MPD 0.23 ignores ALBUM ARTIST in Vorbis comments")
        #expect(values(metadata, .label) == ["bad value"])
        #expect(metadata.tags.first == TagValue(.artist, "A1"))
    }

    @Test("ID3v2.4 string lists, TPE3, TXXX, UFID and numeric genres as MPD's libid3tag reads them")
    func id3MultiValues() throws {
        let metadata = try read("multi.mp3")
        #expect(values(metadata, .artist) == ["A1", "A2"])
        #expect(values(metadata, .genre) == ["Rock", "Pop"])
        #expect(values(metadata, .conductor) == ["Cond"])
        #expect(values(metadata, .performer).isEmpty)
        #expect(values(metadata, .musicBrainzAlbumID) == ["mbid-1"])
        #expect(values(metadata, .musicBrainzTrackID) == ["track-mbid"])
        #expect(values(metadata, .track) == ["7"])
        #expect(metadata.audioFormat == "44100:24:2")
    }

    @Test("tags come in the order MPD's decoder plugin for the format reports them")
    func tagOrder() throws {
        // Vorbis comments: file order.
        #expect(try read("multi.flac").tags.prefix(4).map(\.type) == [.artist, .title, .artist, .artist])
        // ID3 (scan_id3_tag): its frame list, every frame of an ID in file order, then the
        // MusicBrainz TXXX frames, then UFID.
        #expect(
            try read("multi.mp3").tags == [
                TagValue(.artist, "A1"), TagValue(.artist, "A2"), TagValue(.title, "T"), TagValue(.track, "7"),
                TagValue(.genre, "Rock"), TagValue(.genre, "Pop"), TagValue(.conductor, "Cond"),
                TagValue(.musicBrainzAlbumID, "mbid-1"), TagValue(.musicBrainzTrackID, "track-mbid"),
            ])
        // FFmpeg (FfmpegScanDictionary): MPD's tag names in tag-type order, then FFmpeg's own
        // names such as album_artist.
        #expect(
            try read("tagged.m4a").tags.map(\.type) == [
                .artist, .album, .title, .track, .genre, .date, .composer, .comment, .disc, .albumArtist,
            ])
        // libsndfile (WAV): title, artist, comment, date, album, track, genre.
        #expect(try read("tagged.wav").tags.map(\.type) == [.title, .artist, .comment, .date, .album, .track, .genre])
    }

    @Test("only the wanted tags are returned")
    func wantedMask() throws {
        let metadata = try read("multi.flac", TagMask([.artist, .track]))
        #expect(metadata.tags.map(\.type) == [.artist, .artist, .artist, .track])
        #expect(try read("tagged.flac", .none).tags.isEmpty)
        #expect(values(try read("tagged.flac", .defaultMetadata), .comment).isEmpty)
    }

    @Test("the first attached picture, with its MIME type")
    func pictures() throws {
        let mp3 = try read("cover.mp3")
        #expect(mp3.hasEmbeddedPicture)
        #expect(values(mp3, .artist) == ["PicArt"])
        let jpeg = try #require(try MetadataReader.readPicture(path: fixtures.path("cover.mp3")))
        #expect(jpeg.mimeType == "image/jpeg")
        #expect(jpeg.data.prefix(2) == [0xFF, 0xD8])
        #expect(try read("cover.flac").hasEmbeddedPicture)
        let png = try #require(try MetadataReader.readPicture(path: fixtures.path("cover.flac")))
        #expect(png.mimeType == "image/png")
        #expect(png.data.prefix(4) == [0x89, 0x50, 0x4E, 0x47])
        #expect(try MetadataReader.readPicture(path: fixtures.path("tagged.flac")) == nil)
    }

    @Test("readcomments: raw Vorbis comments in order, MPD's key syntax, no control characters")
    func comments() throws {
        let flac = try MetadataReader.readComments(path: fixtures.path("multi.flac"))
        #expect(
            flac.map(\.key) == [
                "ARTIST", "TITLE", "ARTIST", "artist", "GENRE", "MUSICBRAINZ_ALBUMID",
                "ALBUMARTISTSORT", "TRACKNUMBER", "DISCNUMBER", "MOVEMENTNAME", "MOVEMENT",
            ])
        #expect(flac.first?.value == "A1")
        let mp3 = try MetadataReader.readComments(path: fixtures.path("multi.mp3"))
        #expect(mp3.map(\.key) == ["CUSTOM"], "TXXX pairs, keys with spaces left out")
        let m4a = try MetadataReader.readComments(path: fixtures.path("tagged.m4a"))
        #expect(m4a.contains { $0.key == "album_artist" && $0.value == "AlbArt" })
    }

    @Test("broken, non-audio and missing files throw instead of crashing")
    func failures() {
        for name in ["corrupt.mp3", "notes.txt", "missing.flac"] {
            #expect(throws: MetadataReadError.self, "\(name)") { try read(name) }
            #expect(throws: MetadataReadError.self, "\(name)") {
                try MetadataReader.readComments(path: fixtures.path(name))
            }
        }
    }
}
