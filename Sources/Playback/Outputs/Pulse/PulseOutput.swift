import CPulse

/// MPD's `pulse` output: plays through a PulseAudio server, or PipeWire's, which speaks the
/// same protocol, as desktop users run MPD.
///
/// Options, as MPD names them: `server` (default: libpulse's, which reads `PULSE_SERVER`),
/// `sink` (default: the server's default sink), `media_role` (`media.role` for the server's
/// routing; `music` by default, as MPD sets it), `scale_volume` (0.5…5, for the mixer; also
/// read as `scale_factor`) and `name`, which names the stream in the server's volume control.
/// The connection and the stream are made when the output opens and go when it closes.
/// `pause` corks the stream, which keeps its place, so that playback resumes where it stopped.
/// The server holds half a second ahead.
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
