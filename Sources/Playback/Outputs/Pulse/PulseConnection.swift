import CPulse
import Dispatch
import Synchronization

/// One connection to a PulseAudio server (or PipeWire's, which speaks the same protocol) and
/// one playback stream on it, from ``PulseOutput/open(format:)`` to its close, as MPD's
/// `pulse` output makes them.
///
/// libpulse's threaded main loop runs the connection on a thread of its own; every call here
/// takes its lock and, to wait for the server, waits on the loop's condition, which each
/// callback signals. The callbacks only signal (and read a sink input's volume): they get the
/// loop, or this object, as their user data, and capture nothing.
final class PulseConnection: @unchecked Sendable {
    // Mutable state is touched only with the main loop's lock held (or before the loop runs),
    // which the compiler cannot see, hence @unchecked.
    private let mainloop: OpaquePointer
    private var context: OpaquePointer?
    private var stream: OpaquePointer?
    /// The stream's sink input, whose volume the mixer sets and reads.
    private var sinkInput = UInt32.max
    /// Whether the stream is corked (paused).
    private var corked = false
    /// The stream's volume as last read, in `PA_VOLUME_NORM` units (the average of the channels).
    private var volume = PulseConnection.normalVolume
    /// libpulse's `PA_VOLUME_NORM`, 100 %, which Swift cannot import (a cast macro).
    static let normalVolume: pa_volume_t = 0x10000
    /// Called with the volume after the server reported a change (on a dispatch queue, never
    /// under the main loop's lock). Set with ``setVolumeListener(_:)``.
    private var volumeChanged: (@Sendable (pa_volume_t) -> Void)?

    /// Connects to `server` (nil: libpulse's default, `PULSE_SERVER` included) and opens a
    /// playback stream in `format` on `sink` (nil: the server's default).
    /// - Parameters:
    ///   - name: the stream's name, which the server's volume control shows.
    ///   - role: `media.role` (such as `music`), for the server's routing rules.
    ///   - initialVolume: the stream's volume at start; nil: the server's choice.
    init(
        server: String?, sink: String?, name: String, role: String?, format: PCMFormat,
        sampleFormat: pa_sample_format_t, initialVolume: pa_volume_t?
    ) throws(OutputError) {
        guard let loop = pa_threaded_mainloop_new() else { throw OutputError("pa_threaded_mainloop_new() failed") }
        mainloop = loop
        pa_threaded_mainloop_lock(loop)
        defer { pa_threaded_mainloop_unlock(loop) }
        guard pa_threaded_mainloop_start(loop) >= 0 else {
            throw OutputError("pa_threaded_mainloop_start() failed")
        }
        do throws(OutputError) {
            try connectContext(server: server, role: role)
            try connectStream(
                sink: sink, name: name, format: format, sampleFormat: sampleFormat, initialVolume: initialVolume)
        } catch {
            tearDown()
            throw error
        }
    }

    deinit {
        pa_threaded_mainloop_lock(mainloop)
        tearDown()
        pa_threaded_mainloop_unlock(mainloop)
        pa_threaded_mainloop_stop(mainloop)
        pa_threaded_mainloop_free(mainloop)
    }

    private func connectContext(server: String?, role: String?) throws(OutputError) {
        let properties = pa_proplist_new()
        defer { pa_proplist_free(properties) }
        pa_proplist_sets(properties, "application.name", "Tonearm")
        if let role { pa_proplist_sets(properties, "media.role", role) }
        guard let context = pa_context_new_with_proplist(pa_threaded_mainloop_get_api(mainloop), "Tonearm", properties)
        else { throw OutputError("pa_context_new() failed") }
        self.context = context
        let loop = UnsafeMutableRawPointer(mainloop)
        pa_context_set_state_callback(context, { _, loop in pa_threaded_mainloop_signal(OpaquePointer(loop), 0) }, loop)
        guard pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
            throw failure("failed to connect to the PulseAudio server")
        }
        while true {
            let state = pa_context_get_state(context)
            if state == PA_CONTEXT_READY { break }
            guard PA_CONTEXT_IS_GOOD(state) != 0 else { throw failure("failed to connect to the PulseAudio server") }
            pa_threaded_mainloop_wait(mainloop)
        }
    }

    private func connectStream(
        sink: String?, name: String, format: PCMFormat, sampleFormat: pa_sample_format_t,
        initialVolume: pa_volume_t?
    ) throws(OutputError) {
        var spec = pa_sample_spec(
            format: sampleFormat, rate: UInt32(format.sampleRate), channels: UInt8(format.channels))
        guard let stream = pa_stream_new(context, name, &spec, nil) else { throw failure("pa_stream_new() failed") }
        self.stream = stream
        let loop = UnsafeMutableRawPointer(mainloop)
        pa_stream_set_state_callback(stream, { _, loop in pa_threaded_mainloop_signal(OpaquePointer(loop), 0) }, loop)
        pa_stream_set_write_callback(
            stream, { _, _, loop in pa_threaded_mainloop_signal(OpaquePointer(loop), 0) }, loop)
        // Half a second in the server, as the ALSA output's default `buffer_time` keeps ahead of
        // what is heard, so that `elapsed` (counted as the output takes audio) stays as close
        // to what plays; the server's default would be two seconds. A quarter of a second cost
        // a third more CPU per minute of playback (make bench).
        let target = UInt32(format.bytesPerSecond / 2 / format.frameSize * format.frameSize)
        var attributes = pa_buffer_attr(
            maxlength: UInt32.max, tlength: target, prebuf: UInt32.max, minreq: UInt32.max, fragsize: UInt32.max)
        let flags = pa_stream_flags_t(
            rawValue: PA_STREAM_ADJUST_LATENCY.rawValue | PA_STREAM_AUTO_TIMING_UPDATE.rawValue
                | PA_STREAM_INTERPOLATE_TIMING.rawValue)
        var volume = pa_cvolume()
        if let initialVolume { pa_cvolume_set(&volume, UInt32(format.channels), initialVolume) }
        let connected =
            initialVolume == nil
            ? pa_stream_connect_playback(stream, sink, &attributes, flags, nil, nil)
            : pa_stream_connect_playback(stream, sink, &attributes, flags, &volume, nil)
        guard connected >= 0 else { throw failure("failed to connect the stream") }
        while true {
            let state = pa_stream_get_state(stream)
            if state == PA_STREAM_READY { break }
            guard PA_STREAM_IS_GOOD(state) != 0 else { throw failure("failed to connect the stream") }
            pa_threaded_mainloop_wait(mainloop)
        }
        sinkInput = pa_stream_get_index(stream)
        if let initialVolume { self.volume = initialVolume }
        let me = Unmanaged.passUnretained(self).toOpaque()
        pa_context_set_subscribe_callback(
            context,
            { context, event, index, me in
                guard let me else { return }
                let connection = Unmanaged<PulseConnection>.fromOpaque(me).takeUnretainedValue()
                let facility = event.rawValue & PA_SUBSCRIPTION_EVENT_FACILITY_MASK.rawValue
                let kind = event.rawValue & PA_SUBSCRIPTION_EVENT_TYPE_MASK.rawValue
                guard facility == PA_SUBSCRIPTION_EVENT_SINK_INPUT.rawValue,
                    kind == PA_SUBSCRIPTION_EVENT_CHANGE.rawValue, index == connection.sinkInput
                else { return }
                connection.readVolume(context)
            }, me)
        pa_operation_unref(pa_context_subscribe(context, PA_SUBSCRIPTION_MASK_SINK_INPUT, nil, nil))
        readVolume(context)
    }

    /// Asks the server for the sink input's volume; the answer updates ``volume`` and, when it
    /// changed, tells ``volumeChanged``. Called with the lock held (or from a callback).
    private func readVolume(_ context: OpaquePointer?) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        let operation = pa_context_get_sink_input_info(
            context, sinkInput,
            { _, info, _, me in
                guard let me, let info else { return }
                let connection = Unmanaged<PulseConnection>.fromOpaque(me).takeUnretainedValue()
                let volume = withUnsafePointer(to: info.pointee.volume) { pa_cvolume_avg($0) }
                guard volume != connection.volume else { return }
                connection.volume = volume
                if let report = connection.volumeChanged { DispatchQueue.global().async { report(volume) } }
            }, me)
        if let operation { pa_operation_unref(operation) }
    }

    /// Who hears of volume changes made in the server; set under the loop's lock, which the
    /// callbacks that read it run under.
    func setVolumeListener(_ listener: @escaping @Sendable (pa_volume_t) -> Void) {
        pa_threaded_mainloop_lock(mainloop)
        volumeChanged = listener
        pa_threaded_mainloop_unlock(mainloop)
    }

    /// Writes as much of `bytes` (whole frames) as the server takes now, waiting until it takes
    /// some, and returns how much it took.
    func write(_ bytes: UnsafeRawBufferPointer, frameSize: Int) throws(OutputError) -> Int {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        guard let stream else { throw OutputError("the stream is closed") }
        if corked {
            corked = false
            if let operation = pa_stream_cork(stream, 0, nil, nil) { pa_operation_unref(operation) }
        }
        while true {
            guard pa_stream_get_state(stream) == PA_STREAM_READY else { throw failure("the stream failed") }
            let writable = pa_stream_writable_size(stream)
            if writable < 0 { throw failure("pa_stream_writable_size() failed") }
            let count = min(writable, bytes.count) / frameSize * frameSize
            if count > 0 {
                guard pa_stream_write(stream, bytes.baseAddress, count, nil, 0, PA_SEEK_RELATIVE) >= 0 else {
                    throw failure("pa_stream_write() failed")
                }
                return count
            }
            pa_threaded_mainloop_wait(mainloop)
        }
    }

    /// Plays out what the server holds (`pa_stream_drain`) and returns when it has.
    func drain() {
        run { stream, loop in
            pa_stream_drain(stream, { _, _, loop in pa_threaded_mainloop_signal(OpaquePointer(loop), 0) }, loop)
        }
    }

    /// Drops what the server holds (`pa_stream_flush`).
    func flush() {
        run { stream, loop in
            pa_stream_flush(stream, { _, _, loop in pa_threaded_mainloop_signal(OpaquePointer(loop), 0) }, loop)
        }
    }

    /// Pauses the stream in place (`pa_stream_cork`); the next write resumes it.
    func cork() {
        run { stream, loop in
            pa_stream_cork(stream, 1, { _, _, loop in pa_threaded_mainloop_signal(OpaquePointer(loop), 0) }, loop)
        }
        pa_threaded_mainloop_lock(mainloop)
        corked = true
        pa_threaded_mainloop_unlock(mainloop)
    }

    /// The stream's volume (the average of its channels).
    var currentVolume: pa_volume_t {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return volume
    }

    /// Sets every channel of the stream to `level` and waits for the server to confirm.
    func setVolume(_ level: pa_volume_t, channels: Int) throws(OutputError) {
        var volume = pa_cvolume()
        pa_cvolume_set(&volume, UInt32(channels), level)
        let index = sinkInput
        let ok = run { _, loop in
            pa_context_set_sink_input_volume(
                self.context, index, &volume, { _, _, loop in pa_threaded_mainloop_signal(OpaquePointer(loop), 0) },
                loop)
        }
        guard ok else { throw OutputError("failed to set the PulseAudio volume") }
        pa_threaded_mainloop_lock(mainloop)
        self.volume = level
        pa_threaded_mainloop_unlock(mainloop)
    }

    /// Starts an operation with the lock held and waits until it is done; false if it could
    /// not start or the stream is gone.
    @discardableResult
    private func run(
        _ start: (OpaquePointer, UnsafeMutableRawPointer) -> OpaquePointer?
    ) -> Bool {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        guard let stream, let operation = start(stream, UnsafeMutableRawPointer(mainloop)) else { return false }
        defer { pa_operation_unref(operation) }
        while pa_operation_get_state(operation) == PA_OPERATION_RUNNING {
            guard pa_stream_get_state(stream) == PA_STREAM_READY else {
                pa_operation_cancel(operation)
                return false
            }
            pa_threaded_mainloop_wait(mainloop)
        }
        return true
    }

    /// Disconnects the stream and the context. Called with the lock held.
    private func tearDown() {
        if let stream {
            pa_stream_set_state_callback(stream, nil, nil)
            pa_stream_set_write_callback(stream, nil, nil)
            pa_stream_disconnect(stream)
            pa_stream_unref(stream)
            self.stream = nil
        }
        if let context {
            pa_context_set_state_callback(context, nil, nil)
            pa_context_set_subscribe_callback(context, nil, nil)
            pa_context_disconnect(context)
            pa_context_unref(context)
            self.context = nil
        }
    }

    /// An error naming what failed and libpulse's reason.
    private func failure(_ what: String) -> OutputError {
        let code = context.map { pa_context_errno($0) } ?? 0
        return OutputError("\(what): \(String(cString: pa_strerror(code)))")
    }
}
