import CPulse
import Synchronization

/// MPD's `pulse` output: plays through a PulseAudio server, or PipeWire's, which speaks the
/// same protocol, as desktop users run MPD.
///
/// Options, as MPD names them: `server` (default: libpulse's, which reads `PULSE_SERVER`),
/// `sink` (default: the server's default sink), `media_role` (`media.role` for the server's
/// routing; `music` by default, as MPD sets it), `scale_volume` (0.5…5, for the mixer; also
/// read as `scale_factor`) and `name`, which names the stream in the server's volume control. The connection and the stream are made
/// when the output opens and go when it closes. `pause` corks the stream, which keeps its
/// place, so that playback resumes where it stopped. The server holds half a second ahead.
final class PulseOutput: AudioOutputDevice {
    let name: String
    let plugin = "pulse"
    private let server: String?
    private let sink: String?
    private let role: String?
    private let forced: ForcedFormat?
    private let mixer: PulseMixer?
    /// The open connection; only the output thread uses it, the mixer reaches it through
    /// ``PulseMixer/attach(_:channels:)``.
    private var connection: PulseConnection?
    private var frameSize = 4

    /// The volume control of the stream, when `mixer_type` is `hardware`.
    var hardwareMixer: (any HardwareMixer)? { mixer }

    init(name: String, server: String?, sink: String?, role: String?, forced: ForcedFormat?, mixer: PulseMixer?) {
        self.name = name
        self.server = server
        self.sink = sink
        self.role = role
        self.forced = forced
        self.mixer = mixer
    }

    /// Opens a stream in `format`, with the sample type the server takes as it is: 16 bits,
    /// 24 in 32, 32 bits or float.
    func open(format: PCMFormat) throws(OutputError) -> PCMFormat {
        let format = forced.map { $0.apply(to: format) } ?? format
        let sampleFormat: pa_sample_format_t =
            switch format.sample {
            case .s16: PA_SAMPLE_S16LE
            case .s24: PA_SAMPLE_S24_32LE
            case .s32: PA_SAMPLE_S32LE
            case .float: PA_SAMPLE_FLOAT32LE
            }
        guard format.channels >= 1 && format.channels <= Int(PA_CHANNELS_MAX), format.sampleRate > 0 else {
            throw OutputError("PulseAudio cannot play \(format)")
        }
        let connection = try PulseConnection(
            server: server, sink: sink, name: name, role: role, format: format, sampleFormat: sampleFormat,
            initialVolume: mixer?.pendingVolume)
        mixer?.attach(connection, channels: format.channels)
        self.connection = connection
        frameSize = format.frameSize
        return format
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) -> Int {
        guard let connection else { throw OutputError("the PulseAudio output is closed") }
        return try connection.write(bytes, frameSize: frameSize)
    }

    func drain() { connection?.drain() }

    func cancel() { connection?.flush() }

    func pause() -> Bool {
        guard let connection else { return false }
        connection.cork()
        return true
    }

    func close() {
        mixer?.attach(nil, channels: 0)
        connection = nil
    }
}

/// The `pulse` output's mixer, as MPD's: the volume of the output's stream in the server
/// (its sink input), not the sink's. `scale_volume` scales the level both ways. While the
/// output is closed the level set last is kept and the stream opens with it; a change made in
/// the server's volume control (`pactl`, the desktop's mixer) reaches the listeners.
final class PulseMixer: HardwareMixer {
    private let scale: Double
    private struct State {
        var connection: PulseConnection?
        var channels = 2
        /// The level to open the stream with, in `PA_VOLUME_NORM` units; nil: the server's.
        var pending: pa_volume_t?
        var listeners: [@Sendable (Int) -> Void] = []
    }
    private let state = Mutex(State())

    /// A mixer with `scale_factor`.
    init(scale: Double) { self.scale = scale }

    /// The level a new stream starts at.
    var pendingVolume: pa_volume_t? { state.withLock { $0.pending } }

    /// The output opened (`connection`) or closed (nil).
    func attach(_ connection: PulseConnection?, channels: Int) {
        let listeners = state.withLock { state -> [@Sendable (Int) -> Void] in
            if connection == nil, let old = state.connection { state.pending = old.currentVolume }
            state.connection = connection
            state.channels = channels
            return state.listeners
        }
        guard let connection else { return }
        connection.setVolumeListener { [scale] level in
            let percent = Self.percent(level, scale: scale)
            for listener in listeners { listener(percent) }
        }
        let percent = Self.percent(connection.currentVolume, scale: scale)
        for listener in listeners { listener(percent) }
    }

    func volume() throws(OutputError) -> Int {
        let (connection, pending) = state.withLock { ($0.connection, $0.pending) }
        guard let level = connection?.currentVolume ?? pending else { throw OutputError("disconnected") }
        return Self.percent(level, scale: scale)
    }

    func setVolume(_ volume: Int) throws(OutputError) {
        // MPD's integer arithmetic, so that both servers give the stream the same level.
        let level = (pa_volume_t(min(max(volume, 0), 100)) * maximum(scale) + 50) / 100
        let (connection, channels) = state.withLock { state in
            state.pending = level
            return (state.connection, state.channels)
        }
        try connection?.setVolume(level, channels: channels)
    }

    func onChange(_ listener: @escaping @Sendable (Int) -> Void) {
        state.withLock { $0.listeners.append(listener) }
    }

    /// MPD's conversion: 100 × (level + 1) / the scaled maximum, whole percent.
    private static func percent(_ level: pa_volume_t, scale: Double) -> Int {
        Int((100 * (UInt64(level) + 1)) / UInt64(maximum(scale)))
    }

    /// `PA_VOLUME_NORM` scaled by `scale_volume`: the level of 100 %.
    private static func maximum(_ scale: Double) -> pa_volume_t {
        pa_volume_t(scale * Double(PulseConnection.normalVolume))
    }

    private func maximum(_ scale: Double) -> pa_volume_t { Self.maximum(scale) }
}
