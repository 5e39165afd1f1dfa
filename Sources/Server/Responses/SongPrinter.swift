import MediaLibrary
import MPDProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Writes songs, directories and playlist entries the way MPD prints them
/// (`src/SongPrint.cxx`, `src/TimePrint.cxx`).
enum SongPrinter {
    /// A song block: `file`, `Last-Modified`, `Added`, `Format`, the tags the client asked for
    /// in the stored order (MPD's per-format scan order), `Time` and `duration`.
    /// - Parameter range: the part of the song a queue entry plays (`Range: S.sss-E.sss`).
    static func write(_ song: Song, tags: TagMask, range: (start: Double, end: Double?)? = nil, to response: inout ResponseBuffer) {
        response.append("file", song.uri)
        if let range {
            response.append("Range", threeDecimals(range.start) + "-" + (range.end.map(threeDecimals) ?? ""))
        }
        response.append("Last-Modified", timestamp(song.lastModified))
        response.append("Added", timestamp(song.added))
        if let format = song.audioFormat { response.append("Format", format) }
        for tag in song.tags where tags.contains(tag.type) {
            response.append(tag.type.name, tag.value)
        }
        if let duration = song.duration {
            // MPD rounds the milliseconds to whole seconds for the legacy `Time`.
            let milliseconds = Int64((duration * 1000).rounded(.down))
            response.append("Time", (milliseconds + 500) / 1000)
            response.append("duration", threeDecimals(duration))
        }
    }

    /// `directory: PATH` and its `Last-Modified`.
    static func write(_ directory: LibraryDirectory, to response: inout ResponseBuffer) {
        response.append("directory", directory.path)
        response.append("Last-Modified", timestamp(directory.lastModified))
    }

    /// `playlist: URI` and its `Last-Modified`.
    static func write(_ playlist: PlaylistFile, to response: inout ResponseBuffer) {
        response.append("playlist", playlist.uri)
        response.append("Last-Modified", timestamp(playlist.lastModified))
    }

    /// A time as MPD prints it: `YYYY-MM-DDTHH:MM:SSZ` in UTC.
    static func timestamp(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// A number of seconds with three decimals, as MPD's `%1.3f` of a time it keeps in whole
    /// milliseconds, cut rather than rounded.
    static func threeDecimals(_ value: Double) -> String {
        let milliseconds = Int64((value * 1000).rounded(.down))
        let fraction = milliseconds % 1000
        let padded = fraction < 10 ? "00\(fraction)" : (fraction < 100 ? "0\(fraction)" : "\(fraction)")
        return "\(milliseconds / 1000).\(padded)"
    }
}
