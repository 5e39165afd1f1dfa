import MPDProtocol

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
    /// Fills `buffer` with whole frames of `format`; 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer, format: PCMFormat) throws -> Int
}

extension PCMSource {
    /// Unknown, unless the source says.
    var duration: Double? { nil }
    /// No MixRamp tags, unless the source has them.
    var mixRamp: MixRampInfo { MixRampInfo() }
}

/// An output device as its output thread drives it (``AudioOutputDevice`` is one).
protocol PCMSink: AnyObject {
    /// Opens the device for `format`; returns the format it really takes.
    func open(format: PCMFormat) throws -> PCMFormat
    /// Plays bytes, blocking until the device took them; returns how many it took.
    func write(_ bytes: UnsafeRawBufferPointer) throws -> Int
    /// Plays out what the device holds.
    func drain()
    /// Drops what the device holds.
    func cancel()
    /// Pauses the device if it can; `false` when the caller must just stop writing.
    func pause() -> Bool
    /// Closes the device.
    func close()
    /// The device's runtime attributes (``AudioOutputDevice/attributes``).
    var attributes: [OutputAttribute] { get }
    /// Changes one (``AudioOutputDevice/setAttribute(name:value:)``).
    func setAttribute(name: String, value: String) throws(OutputAttributeError)
}

extension PCMSink {
    /// None, unless the sink has some.
    var attributes: [OutputAttribute] { [] }
    /// MPD's answer for a plugin without attributes.
    func setAttribute(name: String, value: String) throws(OutputAttributeError) { throw .unsupported }
}

extension AudioDecoder: PCMSource {}

/// An output device as a ``PCMSink``: the pipeline's output thread drives devices through it.
final class DeviceSink: PCMSink {
    let device: any AudioOutputDevice

    init(_ device: any AudioOutputDevice) { self.device = device }

    func open(format: PCMFormat) throws -> PCMFormat { try device.open(format: format) }
    func write(_ bytes: UnsafeRawBufferPointer) throws -> Int { try device.write(bytes) }
    func drain() { device.drain() }
    func cancel() { device.cancel() }
    func pause() -> Bool { device.pause() }
    func close() { device.close() }
    var attributes: [OutputAttribute] { device.attributes }
    func setAttribute(name: String, value: String) throws(OutputAttributeError) {
        try device.setAttribute(name: name, value: value)
    }
}
