import Foundation
import MusicModel
package import Platform
import Settings

/// Reads and writes MPD's state file (`state_file`), so that a user moving from MPD keeps the
/// queue and the position, and a restart of Tonearm does too.
///
/// Writing goes to a temporary file beside the target that is flushed and renamed into
/// place, so a crash at any moment leaves either the old file or the new one, never half of
/// one.
package enum StateFile {
    /// The file's text for `state`, in MPD's order.
    package static func render(_ state: SavedPlayerState) -> String {
        var lines: [String] = ["sw_volume: \(state.softwareVolume)"]
        for output in state.outputs { lines.append("audio_device_state:\(output.enabled ? 1 : 0):\(output.name)") }
        lines.append("state: \(state.state.rawValue)")
        if let current = state.current { lines.append("current: \(current)") }
        if state.state != .stop { lines.append("time: \(shortest(state.elapsed))") }
        lines.append("random: \(state.random ? 1 : 0)")
        // MPD's reader skips lines it does not know within the playlist state, so it still
        // reads this file.
        if let mode = state.shuffleMode { lines.append("shufflemode: \(mode.rawValue)") }
        lines.append("repeat: \(state.repeatMode ? 1 : 0)")
        lines.append("single: \(state.single.rawValue)")
        lines.append("consume: \(state.consume.rawValue)")
        lines.append("crossfade: \(state.crossfade)")
        lines.append("mixrampdb: \(shortest(Double(state.mixRampDB)))")
        lines.append("mixrampdelay: \(shortest(Double(state.mixRampDelay)))")
        lines.append("lastloadedplaylist: \(state.lastLoadedPlaylist)")
        lines.append("playlist_begin")
        for (position, entry) in state.entries.enumerated() {
            if entry.priority != 0 { lines.append("Prio: \(entry.priority)") }
            if !entry.range.isWhole || !entry.tags.isEmpty {
                // MPD's `song_save`, which it writes for every song outside its database.
                lines.append("song_begin: \(entry.uri)")
                if !entry.range.isWhole {
                    let start = Int((entry.range.start * 1000).rounded())
                    lines.append(
                        "Range: \(start)-" + (entry.range.end.map { String(Int(($0 * 1000).rounded())) } ?? ""))
                }
                for tag in entry.tags { lines.append("\(tag.type.name): \(Self.oneLine(tag.value))") }
                lines.append("song_end")
            } else {
                lines.append("\(position):\(entry.uri)")
            }
        }
        lines.append("playlist_end")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Parses a state file written by Tonearm or MPD. Lines it does not know are skipped, as
    /// MPD skips them, so a newer or older file still restores what it can.
    package static func parse(_ text: String) -> SavedPlayerState {
        parse(lines: lines(of: text))
    }

    /// The lines of `text`, split at each `\n` with a `\r` before it dropped, as MPD's
    /// `ReadBufferedLine` reads them. Split on the UTF-8 bytes: splitting by `Character` walked
    /// the grapheme breaks of a 100,000-song file, a third of a restart's time.
    static func lines(of text: String) -> [Substring] {
        text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            Substring(line.last == UInt8(ascii: "\r") ? line.dropLast() : line)
        }
    }

    /// Parses the lines of one partition's state (``parse(_:)``).
    static func parse(lines: some Sequence<Substring>) -> SavedPlayerState {
        var state = SavedPlayerState()
        var lines = lines.makeIterator()
        var priority: UInt8 = 0
        while let line = lines.next() {
            if bytesEqual(line, "playlist_begin") {
                while let line = lines.next() {
                    if bytesEqual(line, "playlist_end") { break }
                    // `N:URI`, the common line, is told by its first byte, before any key.
                    if let colon = colonAfterPosition(line) {
                        state.entries.append(
                            SavedPlayerState.Entry(
                                uri: String(line[line.utf8.index(after: colon)...]), priority: priority))
                        priority = 0
                    } else if let value = value(line, "Prio: ") {
                        priority = UInt8(clamping: Int(value) ?? 0)
                    } else if let uri = value(line, "song_begin: ") {
                        var entry = SavedPlayerState.Entry(uri: String(uri), priority: priority)
                        while let line = lines.next(), !bytesEqual(line, "song_end") {
                            if let range = value(line, "Range: ") {
                                entry.range = parseRange(range) ?? .whole
                            } else if let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")),
                                let type = TagType(name: String(line[..<colon]))
                            {
                                let text = line[line.utf8.index(after: colon)...].drop { $0 == " " }
                                entry.tags.append(TagValue(type, String(text)))
                            }
                        }
                        // A file's tags come from the database; only a stream keeps these.
                        if !RemoteStream.hasScheme(entry.uri) { entry.tags = [] }
                        state.entries.append(entry)
                        priority = 0
                    }
                }
                continue
            }
            if let device = value(line, "audio_device_state:") {
                let parts = device.split(separator: ":", maxSplits: 1)
                if parts.count == 2 { state.outputs.append((String(parts[1]), parts[0] != "0")) }
                continue
            }
            guard let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let key = line[..<colon]
            let value = line[line.utf8.index(after: colon)...].drop { $0 == " " }
            switch key {
            case "sw_volume": if let volume = Int(value), (0...100).contains(volume) { state.softwareVolume = volume }
            case "state": state.state = PlayState(rawValue: String(value)) ?? .stop
            case "current": state.current = Int(value).flatMap { $0 >= 0 ? $0 : nil }
            case "time": state.elapsed = max(0, Double(value) ?? 0)
            case "random": state.random = value == "1"
            case "shufflemode": state.shuffleMode = ShuffleMode(rawValue: String(value))
            case "repeat": state.repeatMode = value == "1"
            // MPD 0.23 writes the mode's number (`(int)queue.single`), so oneshot is `2`, which
            // no MPD reads back (MPD issue #1853; 0.24 writes `oneshot`). It meant oneshot.
            case "single": state.single = value == "2" ? .oneshot : SingleMode(protocolValue: String(value)) ?? .off
            case "consume": state.consume = ConsumeMode(protocolValue: String(value)) ?? .off
            case "crossfade": state.crossfade = max(0, Int(Double(value) ?? 0))
            case "mixrampdb": state.mixRampDB = Float(value) ?? 0
            // Old files say `nan` for "off": only numbers count.
            case "mixrampdelay":
                if let first = value.first, first.isNumber || first == "-" { state.mixRampDelay = Float(value) ?? -1 }
            case "lastloadedplaylist": state.lastLoadedPlaylist = String(value)
            default: break
            }
        }
        return state
    }

    /// Where the colon of a queue line `N:URI` is, N being digits; `nil` for any other line.
    private static func colonAfterPosition(_ line: Substring) -> String.Index? {
        let bytes = line.utf8
        guard let first = bytes.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return nil }
        var index = bytes.index(after: bytes.startIndex)
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: ":") { return index }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            index = bytes.index(after: index)
        }
        return nil
    }

    /// A tag value on one line: a stream's title could hold a line break, which would end
    /// the value early and make the rest a line of its own.
    private static func oneLine(_ value: String) -> String {
        value.contains(where: \.isNewline) ? String(value.map { $0.isNewline ? " " : $0 }) : value
    }

    /// Writes `state` (the default partition alone) to `path` atomically.
    package static func write(_ state: SavedPlayerState, to path: String) throws(AtomicFile.Failure) {
        try write(SavedServerState(main: state), to: path)
    }

    /// Writes the state of every partition to `path` atomically (``AtomicFile``): after a
    /// crash, a power cut or a full disk the file holds this state or the one before.
    package static func write(_ state: SavedServerState, to path: String) throws(AtomicFile.Failure) {
        try AtomicFile.write(Array(render(state).utf8), to: path)
    }

    /// Reads and parses the file at `path` (the default partition); `nil` when it cannot be read.
    package static func read(from path: String) -> SavedPlayerState? {
        readServer(from: path)?.main
    }

    /// Reads and parses the file at `path`, every partition; `nil` when it cannot be read.
    package static func readServer(from path: String) -> SavedServerState? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return parseServer(String(decoding: data, as: UTF8.self))
    }

    /// Whether `line` is `word`, byte for byte as MPD compares (`String`'s `==` compares
    /// canonical equivalence, which for a file with any non-ASCII text is the slow path).
    static func bytesEqual(_ line: Substring, _ word: String) -> Bool {
        line.utf8.elementsEqual(word.utf8)
    }

    /// What follows `prefix` (the key with its separator) on `line`, or `nil`.
    private static func value(_ line: Substring, _ prefix: StaticString) -> Substring? {
        let key = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        guard line.utf8.starts(with: key) else { return nil }
        return line[line.utf8.index(line.startIndex, offsetBy: key.count)...]
    }

    /// `START-END` in milliseconds, END optional.
    private static func parseRange(_ text: Substring) -> SongTimeRange? {
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let start = Int(parts[0]) else { return nil }
        return SongTimeRange(start: Double(start) / 1000, end: Int(parts[1]).map { Double($0) / 1000 })
    }

    /// A number in its shortest form, as MPD's `{}` format prints it (`0`, `-17.5`, `83.123`).
    static func shortest(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
