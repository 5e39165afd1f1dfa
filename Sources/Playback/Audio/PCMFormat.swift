/// How PCM samples are laid out: the format the decoder produces and an output consumes.
///
/// Samples are always interleaved (left, right, left, …) in native byte order, as ALSA, pipes
/// and Snapcast's fifo take them.
package struct PCMFormat: Sendable, Hashable, CustomStringConvertible {
    /// The kind of one sample.
    package enum Sample: String, Sendable, Hashable, CaseIterable {
        /// Signed 16-bit integers.
        case s16
        /// Signed 24-bit integers in the low bytes of 32-bit words (MPD's `S24_P32`).
        case s24
        /// Signed 32-bit integers.
        case s32
        /// 32-bit floats, −1…1.
        case float

        /// Bytes one sample takes.
        package var size: Int { self == .s16 ? 2 : 4 }
        /// MPD's spelling in a format string (`16`, `24`, `32`, `f`).
        package var mpdName: String {
            switch self {
            case .s16: "16"
            case .s24: "24"
            case .s32: "32"
            case .float: "f"
            }
        }
    }

    /// Frames per second.
    package var sampleRate: Int
    /// The sample type.
    package var sample: Sample
    /// Channels per frame.
    package var channels: Int

    /// Creates a format.
    package init(sampleRate: Int, sample: Sample, channels: Int) {
        self.sampleRate = sampleRate
        self.sample = sample
        self.channels = channels
    }

    /// CD audio: 44.1 kHz, 16 bit, stereo.
    package static let cd = PCMFormat(sampleRate: 44100, sample: .s16, channels: 2)

    /// Bytes per frame (one sample of every channel).
    package var frameSize: Int { sample.size * channels }
    /// Bytes per second of audio.
    package var bytesPerSecond: Int { frameSize * sampleRate }

    /// MPD's notation, `44100:16:2`, as `status` `audio` and `format` options write it.
    package var description: String { "\(sampleRate):\(sample.mpdName):\(channels)" }

    /// Parses MPD's `RATE:BITS:CHANNELS` (as the `format` option of an output takes it); `*`
    /// keeps the source's value for that field, taken from `source`.
    package init?(mpdFormat text: String, source: PCMFormat? = nil) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        func field<T>(_ part: Substring, _ keep: T?, _ parse: (Substring) -> T?) -> T? {
            part == "*" ? keep : parse(part)
        }
        guard
            let rate = field(
                parts[0], source?.sampleRate, { Int($0).flatMap { (1...768_000).contains($0) ? $0 : nil } }),
            let sample = field(parts[1], source?.sample, { text in Sample.allCases.first { $0.mpdName == text } }),
            let channels = field(parts[2], source?.channels, { Int($0).flatMap { (1...8).contains($0) ? $0 : nil } })
        else { return nil }
        self.init(sampleRate: rate, sample: sample, channels: channels)
    }
}
