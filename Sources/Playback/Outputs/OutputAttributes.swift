import MusicModel
import Synchronization

/// A runtime attribute of an output, as `outputs` lists it (`attribute: NAME=VALUE`) and
/// `outputset` changes it (MPD 0.21+).
package struct OutputAttribute: Sendable, Equatable {
    /// The attribute's name (`dop`, `allowed_formats`).
    package var name: String
    /// Its value as MPD prints it.
    package var value: String

    /// Creates an attribute.
    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Why `outputset` could not change an output's attribute.
package enum OutputAttributeError: Error, Sendable, Equatable {
    /// No output has the number given.
    case noSuchOutput
    /// The output has no attribute of that name (every plugin but ALSA has none).
    case unsupported
    /// ALSA's `dop` takes `0` or `1` only.
    case invalidDoP
    /// An entry of ALSA's `allowed_formats` is not an audio format; `reason` is the format
    /// parser's message, which MPD shows the client as it is (`Invalid sample rate: 0`).
    case invalidAllowedFormat(reason: String)
}

/// One entry of ALSA's `allowed_formats`: a format, `*` fields allowed, and `=dop` for DSD
/// over PCM (MPD's `Alsa::AllowedFormat`).
struct AllowedFormat: Sendable, Equatable {
    let pattern: AudioFormatPattern
    let dop: Bool

    /// Why a list did not parse: the format parser's message, which MPD shows as it is,
    /// after `allowed_formats: ` in the log for the option, alone in the `outputset` ACK.
    struct ParseError: Error {
        let reason: String
    }

    /// Parses the space-separated list with MPD's messages (an empty list allows anything).
    static func parseList(_ text: String) throws(ParseError) -> [AllowedFormat] {
        var list: [AllowedFormat] = []
        for word in text.split(separator: " ") {
            var entry = String(word)
            let dop = entry.hasSuffix("=dop")
            if dop { entry.removeLast(4) }
            let pattern: AudioFormatPattern
            do {
                pattern = try AudioFormatPattern.parse(entry, mask: true)
            } catch {
                // The filter syntax's parser (MusicModel's), shared so both read formats alike;
                // its message is all there is to keep.
                throw ParseError(reason: error.message)
            }
            list.append(AllowedFormat(pattern: pattern, dop: dop))
        }
        return list
    }

    /// MPD's spelling, as `outputs` shows it: `44100:16:2`, `*:24:*`, `dsd64:2=dop`.
    var text: String {
        let channels = pattern.channels.map { String($0) } ?? "*"
        let suffix = dop ? "=dop" : ""
        if pattern.bits == "dsd", let rate = pattern.sampleRate {
            return "dsd\(rate * 8 / 44_100):\(channels)\(suffix)"
        }
        let rate = pattern.sampleRate.map { String($0) } ?? "*"
        return "\(rate):\(pattern.bits ?? "*"):\(channels)\(suffix)"
    }

    /// Whether `format` fits the entry (its `*` fields match anything).
    func matches(_ format: PCMFormat) -> Bool {
        (pattern.sampleRate.map { Int($0) == format.sampleRate } ?? true)
            && (pattern.bits.map { $0 == format.sample.mpdName } ?? true)
            && (pattern.channels.map { Int($0) == format.channels } ?? true)
    }

    /// `format` with the entry's fields put in (MPD's `ApplyMask`). Sample types Tonearm does
    /// not produce (8-bit, DSD) keep the source's.
    func apply(to format: PCMFormat) -> PCMFormat {
        var result = format
        if let rate = pattern.sampleRate { result.sampleRate = Int(rate) }
        if let bits = pattern.bits, let sample = PCMFormat.Sample.allCases.first(where: { $0.mpdName == bits }) {
            result.sample = sample
        }
        if let channels = pattern.channels { result.channels = Int(channels) }
        return result
    }

    /// The entry for `format` (MPD's `BestMatch`): the first that fits, else the first.
    static func bestMatch(_ list: [AllowedFormat], for format: PCMFormat) -> AllowedFormat? {
        list.first { $0.matches(format) } ?? list.first
    }
}

/// The ALSA output's attributes, `allowed_formats` and `dop`: set by `outputset` from a
/// client's task, read by the output thread when it opens the device (never while it plays).
final class ALSAAttributes: Sendable {
    private let state: Mutex<(allowed: [AllowedFormat], dop: Bool)>

    /// Starts from the `allowed_formats` and `dop` options.
    init(allowedFormats: [AllowedFormat], dop: Bool) {
        state = Mutex((allowedFormats, dop))
    }

    /// What `outputs` lists, in MPD's (alphabetical) order.
    var list: [OutputAttribute] {
        state.withLock { state in
            [
                OutputAttribute(name: "allowed_formats", value: state.allowed.map(\.text).joined(separator: " ")),
                OutputAttribute(name: "dop", value: state.dop ? "1" : "0"),
            ]
        }
    }

    /// The allowed formats in effect for the next open.
    var allowedFormats: [AllowedFormat] { state.withLock { $0.allowed } }

    /// `outputset`: MPD's ALSA plugin takes `dop` as `0` or `1` and `allowed_formats` as a
    /// list of formats; anything else is not an attribute of it.
    func set(name: String, value: String) throws(OutputAttributeError) {
        switch name {
        case "dop":
            guard value == "0" || value == "1" else { throw .invalidDoP }
            state.withLock { $0.dop = value == "1" }
        case "allowed_formats":
            let list: [AllowedFormat]
            do {
                list = try AllowedFormat.parseList(value)
            } catch {
                throw .invalidAllowedFormat(reason: error.reason)
            }
            state.withLock { $0.allowed = list }
        default:
            throw .unsupported
        }
    }
}
