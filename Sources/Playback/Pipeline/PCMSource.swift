import MusicModel

/// A decoded song as the decoder thread reads it (``AudioDecoder`` is one).
protocol PCMSource: AnyObject {
    /// The song's own sample layout.
    var sourceFormat: PCMFormat { get }
    /// The bit rate of what was decoded last, kbit/s.
    var bitrate: Int { get }
    /// The position of the next sample `read` returns, in seconds.
    var position: Double { get }
    /// The song's replay gain values from its tags, `nil` when it has none.
    var replayGain: ReplayGainInfo? { get }
    /// The song's length in seconds, when known: crossfading needs it.
    var duration: Double? { get }
    /// The song's MixRamp tags.
    var mixRamp: MixRampInfo { get }
    /// Moves to `seconds`.
    func seek(to seconds: Double) throws
    /// A stream's tags once after each change (see ``AudioDecoder/takeStreamTags()``).
    func takeStreamTags() -> [TagValue]?
    /// Fills `buffer` with whole frames of `format`; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer, format: PCMFormat) throws -> Int
}

extension PCMSource {
    /// Unknown, unless the source says.
    var duration: Double? { nil }
    /// No MixRamp tags, unless the source has them.
    var mixRamp: MixRampInfo { MixRampInfo() }
    /// Not a stream, unless the source is one.
    func takeStreamTags() -> [TagValue]? { nil }
}

extension AudioDecoder: PCMSource {}
