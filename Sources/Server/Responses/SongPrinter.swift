import MPDProtocol
import MediaLibrary
import MusicModel

#if canImport(Glibc)
    import Glibc
#endif

/// Writes songs, directories and playlist entries the way MPD prints them
/// (`src/SongPrint.cxx`, `src/TimePrint.cxx`).
enum SongPrinter {
    /// A song block: `file`, `Last-Modified`, `Added`, `Format`, the tags the client asked for
    /// in the stored order (MPD's per-format scan order), `Time` and `duration`.
    /// - Parameter range: the part of the song a queue entry plays (`Range: S.sss-E.sss`).
    static func write(
        _ song: Song, tags: TagMask, range: SongTimeRange = .whole, to response: inout ResponseBuffer
    ) {
        response.append("file", song.uri)
        if !range.isWhole {
            response.append("Range", threeDecimals(range.start) + "-" + (range.end.map(threeDecimals) ?? ""))
        }
        // A stream was never scanned: MPD prints no times for it.
        if song.lastModified != 0 || !song.isStream {
            appendTimestamp("Last-Modified", song.lastModified, to: &response)
            appendTimestamp("Added", song.added, to: &response)
        }
        if let format = song.audioFormat { response.append("Format", format) }
        song.packedTags.forEach { type, value in
            if tags.contains(type) { response.append(type.name, bytes: value) }
        }
        if let duration = song.duration { appendDuration(duration, to: &response) }
    }

    /// A song block from the database's record, as ``write(_:tags:range:to:)`` prints a song,
    /// without building the song: the values go from SQLite's row into the response.
    static func write(_ record: SongRecord, tags: TagMask, to response: inout ResponseBuffer) {
        response.append("file", bytes: record.uri)
        appendTimestamp("Last-Modified", record.lastModified, to: &response)
        appendTimestamp("Added", record.added, to: &response)
        if let format = record.audioFormat { response.append("Format", bytes: format) }
        record.forEachTag { type, value in
            if tags.contains(type) { response.append(type.name, bytes: value) }
        }
        if let duration = record.duration { appendDuration(duration, to: &response) }
    }

    /// `Time` and `duration` lines.
    private static func appendDuration(_ duration: Double, to response: inout ResponseBuffer) {
        // MPD rounds the milliseconds to whole seconds for the legacy `Time`.
        let milliseconds = Int64((duration * 1000).rounded(.down))
        response.append("Time", (milliseconds + 500) / 1000)
        guard milliseconds >= 0 else { return response.append("duration", threeDecimals(duration)) }
        // ``threeDecimals(_:)``'s text written in place: every song block prints one.
        withUnsafeTemporaryAllocation(byteCount: ResponseBuffer.decimalWidth + 4, alignment: 1) { text in
            var fraction = milliseconds % 1000
            for index in stride(from: text.count - 1, through: text.count - 3, by: -1) {
                text[index] = UInt8(truncatingIfNeeded: 0x30 + fraction % 10)
                fraction /= 10
            }
            text[text.count - 4] = UInt8(ascii: ".")
            let start = ResponseBuffer.writeDecimal(milliseconds / 1000, endingAt: text.count - 4, in: text)
            response.append("duration", bytes: UnsafeRawBufferPointer(rebasing: text[start...]))
        }
    }

    /// `key: TIME` with the time formatted in place.
    private static func appendTimestamp(_ key: String, _ seconds: Int64, to response: inout ResponseBuffer) {
        withUnsafeTemporaryAllocation(byteCount: 20, alignment: 1) { text in
            if let count = formatTimestamp(seconds, into: text) {
                response.append(key, bytes: UnsafeRawBufferPointer(rebasing: text[..<count]))
            } else {
                response.append(key, slowTimestamp(seconds))
            }
        }
    }

    /// `directory: PATH` and its `Last-Modified`, from the path's UTF-8 bytes.
    static func writeDirectory(_ path: UnsafeRawBufferPointer, lastModified: Int64, to response: inout ResponseBuffer) {
        response.append("directory", bytes: path)
        appendTimestamp("Last-Modified", lastModified, to: &response)
    }

    /// `playlist: URI` and its `Last-Modified`, from the URI's UTF-8 bytes.
    static func writePlaylist(_ uri: UnsafeRawBufferPointer, lastModified: Int64, to response: inout ResponseBuffer) {
        response.append("playlist", bytes: uri)
        appendTimestamp("Last-Modified", lastModified, to: &response)
    }

    /// A time as MPD prints it: `YYYY-MM-DDTHH:MM:SSZ` in UTC.
    ///
    /// Every song block prints two; the civil date is computed directly (Howard Hinnant's
    /// `civil_from_days`) and the digits written into one small buffer, which costs a fraction
    /// of `gmtime_r` and string interpolation. Years outside 1000…9999 take that slower path.
    static func timestamp(_ seconds: Int64) -> String {
        withUnsafeTemporaryAllocation(byteCount: 20, alignment: 1) { text in
            guard let count = formatTimestamp(seconds, into: text) else { return slowTimestamp(seconds) }
            return String(decoding: UnsafeRawBufferPointer(rebasing: text[..<count]), as: UTF8.self)
        }
    }

    /// Writes ``timestamp(_:)``'s text into `text` (20 bytes) and returns its length, or `nil`
    /// for years outside 1000…9999, which take the slower path.
    private static func formatTimestamp(_ seconds: Int64, into text: UnsafeMutableRawBufferPointer) -> Int? {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        guard (1000...9999).contains(year) else { return nil }
        var offset = 0
        // Each field as two digits, after its separator (none within the year).
        func put(_ field: Int64, after separator: UInt8?) {
            if let separator {
                text[offset] = separator
                offset += 1
            }
            text[offset] = UInt8(truncatingIfNeeded: 0x30 + field / 10)
            text[offset + 1] = UInt8(truncatingIfNeeded: 0x30 + field % 10)
            offset += 2
        }
        put(year / 100, after: nil)
        put(year % 100, after: nil)
        put(month, after: UInt8(ascii: "-"))
        put(day, after: UInt8(ascii: "-"))
        put(time / 3600, after: UInt8(ascii: "T"))
        put(time / 60 % 60, after: UInt8(ascii: ":"))
        put(time % 60, after: UInt8(ascii: ":"))
        text[offset] = UInt8(ascii: "Z")
        return offset + 1
    }

    /// ``timestamp(_:)`` through `gmtime_r`, for any year.
    static func slowTimestamp(_ seconds: Int64) -> String {
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
