import CALSA
import Glibc

/// MPD's `alsa` output: a PCM opened by name (`device`, default `default`), written with
/// blocking `snd_pcm_writei` from the output thread.
///
/// MPD drives ALSA non-blocking from its I/O event loop with a ring buffer in between; Tonearm
/// has a dedicated output thread per output, so it writes blocking, which keeps the write path
/// free of locks and copies. The device is opened non-blocking and switched to blocking after,
/// so that a busy `hw:` device fails at once (`Device or resource busy`) instead of hanging the
/// thread until it is free.
///
/// - Format: ``ALSAHardwareSetup`` (MPD's negotiation and buffer/period defaults).
/// - Underruns and suspends are recovered with `snd_pcm_recover` and the write goes on; each
///   underrun is counted (``underruns``), and the output thread logs it.
/// - `pause` uses `snd_pcm_pause` where the hardware can pause; the next write resumes.
/// - `cancel` drops the buffer (`snd_pcm_drop`); the device is prepared again only when the
///   next write comes, as MPD does (preparing at once makes some drivers click).
/// - Options: `device`, `buffer_time`, `period_time` (µs) and, for the mixer, `mixer_device`,
///   `mixer_control`, `mixer_index` (see ``ALSAMixer``).
package final class ALSAOutput: AudioOutputDevice {
    /// The configured name.
    package let name: String
    /// `alsa`.
    package var plugin: String { "alsa" }
    /// The ALSA PCM name (`device`).
    package let device: String
    /// The simple-mixer volume control, when `mixer_type` is `hardware`.
    package var hardwareMixer: (any HardwareMixer)? { mixer }

    private let bufferTime: UInt32
    private let periodTime: UInt32
    private let forced: ForcedFormat?
    private let mixer: ALSAMixer?
    private let settable: ALSAAttributes
    private var pcm: OpaquePointer?
    private var frameSize = 0
    private var canPause = false
    private var paused = false
    private var mustPrepare = false
    /// The PCM's poll descriptors and, last, the output thread's wake signal: made at open, so
    /// that a wait for room allocates nothing.
    private var pollDescriptors = UnsafeMutableBufferPointer<pollfd>(start: nil, count: 0)
    /// How many times the device ran dry (`EPIPE` from `snd_pcm_writei`) and was prepared
    /// again; never reset, so the output thread notices each new one.
    package private(set) var underruns = 0
    /// What the last open negotiated, for `outputs`' attributes and tests.
    package private(set) var negotiated: ALSAHardwareSetupSummary?

    /// Creates an ALSA output; nothing is opened until ``open(format:)``.
    init(
        name: String, device: String, bufferTime: Int, periodTime: Int, forced: ForcedFormat?, mixer: ALSAMixer?,
        allowedFormats: [AllowedFormat] = [], dop: Bool = false
    ) {
        settable = ALSAAttributes(allowedFormats: allowedFormats, dop: dop)
        self.name = name
        self.device = device
        self.bufferTime = UInt32(clamping: bufferTime)
        self.periodTime = UInt32(clamping: periodTime)
        self.forced = forced
        self.mixer = mixer
    }

    /// Creates an ALSA output directly, for tests: MPD's default buffer and period times and no
    /// mixer.
    package convenience init(name: String = "alsa", device: String = "default") {
        self.init(name: name, device: device, bufferTime: 500_000, periodTime: 0, forced: nil, mixer: nil)
    }

    /// `allowed_formats` and `dop`. Tonearm decodes DSD to PCM, so `dop` (DSD over PCM) is
    /// kept and shown but never has anything to apply to.
    package var attributes: [OutputAttribute] { settable.list }

    /// `outputset` for `allowed_formats` and `dop`, with MPD's errors; used at the next open.
    package func setAttribute(name: String, value: String) throws(OutputAttributeError) {
        try settable.set(name: name, value: value)
    }

    /// Closes the PCM if the owner forgot, so the card is not held after the output is gone.
    deinit { close() }

    /// Opens `device` and negotiates the format (see ``ALSAHardwareSetup``); a device left open
    /// by an earlier open is closed first.
    package func open(format: PCMFormat) throws(OutputError) -> PCMFormat {
        close()
        tonearm_alsa_silence_errors()
        var handle: OpaquePointer?
        let err = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
        guard err >= 0, let handle else {
            throw OutputError.alsa("Failed to open ALSA device \"\(device)\"", err)
        }
        let result: ALSAHardwareSetup.Result
        do {
            // `allowed_formats` chooses the entry as MPD does (the first the format fits, else
            // the first) and puts in its sample type. Its rate and channels are left to the
            // stream: the output thread converts sample types only (MPD would resample).
            var wanted = forced.apply(to: format)
            if let allowed = AllowedFormat.bestMatch(settable.allowedFormats, for: wanted) {
                wanted.sample = allowed.apply(to: wanted).sample
            }
            result = try ALSAHardwareSetup.configure(
                handle, format: wanted, bufferTime: bufferTime, periodTime: periodTime)
        } catch {
            snd_pcm_close(handle)
            throw OutputError("Error opening ALSA device \"\(device)\"; \(error.message)", code: error.code)
        }
        let blocking = snd_pcm_nonblock(handle, 0)
        if blocking < 0 {
            snd_pcm_close(handle)
            throw OutputError.alsa("Error opening ALSA device \"\(device)\"; snd_pcm_nonblock() failed", blocking)
        }
        pcm = handle
        let descriptorCount = max(Int(snd_pcm_poll_descriptors_count(handle)), 0)
        pollDescriptors = .allocate(capacity: descriptorCount + 1)
        frameSize = result.format.frameSize
        canPause = result.canPause
        paused = false
        mustPrepare = false
        negotiated = ALSAHardwareSetupSummary(
            format: result.format, bufferFrames: Int(result.bufferFrames),
            periodFrames: Int(result.periodFrames), canPause: result.canPause)
        return result.format
    }

    /// Writes whole frames with blocking `snd_pcm_writei`, recovering from underruns, after
    /// undoing a pause or a cancel.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) -> Int {
        guard let pcm, frameSize > 0 else {
            throw OutputError("snd_pcm_writei() failed: ALSA device \"\(device)\" is not open")
        }
        guard let base = bytes.baseAddress else { return 0 }
        try resume(pcm)
        let frames = bytes.count / frameSize
        var done = 0
        while done < frames {
            let n = snd_pcm_writei(pcm, base + done * frameSize, snd_pcm_uframes_t(frames - done))
            if n >= 0 {
                done += n
                continue
            }
            if n == -Int(EAGAIN) || n == -Int(EINTR) { continue }
            // Underrun (EPIPE) or suspend (ESTRPIPE): prepare or resume and go on writing.
            if n == -Int(EPIPE) { underruns += 1 }
            let recovered = snd_pcm_recover(pcm, Int32(truncatingIfNeeded: n), 1)
            if recovered < 0 { throw .alsa("snd_pcm_writei() failed", n) }
        }
        return done * frameSize
    }

    /// Room in the ring buffer for `byteCount` bytes, waiting for it in `poll(2)` on the PCM's
    /// descriptors and `wake`, as `snd_pcm_wait` waits on the PCM's alone. The PCM wakes the
    /// poll once a period is free (`avail_min`), so a steady stream costs a wake-up a period.
    /// A device not yet running (prepared, paused, dropped) takes the write at once, and an
    /// error is left to ``write(_:)``, which recovers from it.
    package func waitForRoom(_ byteCount: Int, interruptedBy wake: Int32) -> Bool {
        guard let pcm, frameSize > 0, !paused, !mustPrepare, snd_pcm_state(pcm) == SND_PCM_STATE_RUNNING else {
            return true
        }
        let frames = byteCount / frameSize
        let available = snd_pcm_avail_update(pcm)
        if available < 0 || available >= frames { return true }
        guard let descriptors = pollDescriptors.baseAddress else { return true }
        let count = snd_pcm_poll_descriptors(pcm, descriptors, UInt32(pollDescriptors.count - 1))
        if count < 0 { return true }
        descriptors[Int(count)] = pollfd(fd: wake, events: Int16(POLLIN), revents: 0)
        // The timeout only bounds a device that never wakes the poll; the wake signal ends the
        // wait for everything else.
        let ready = poll(descriptors, nfds_t(count + 1), Self.longestRoomWait)
        if ready <= 0 || descriptors[Int(count)].revents != 0 { return false }
        var events: UInt16 = 0
        if snd_pcm_poll_descriptors_revents(pcm, descriptors, UInt32(count), &events) < 0 { return true }
        if events & UInt16(POLLERR | POLLHUP | POLLNVAL) != 0 { return true }
        let now = snd_pcm_avail_update(pcm)
        return now < 0 || now >= frames
    }

    /// At most how long one poll for room lasts, in milliseconds.
    private static let longestRoomWait: Int32 = 500

    /// Plays out the buffer (`snd_pcm_drain`, which blocks until the last frame was heard).
    package func drain() {
        guard let pcm, !mustPrepare else { return }
        if paused { _ = snd_pcm_pause(pcm, 0) }
        paused = false
        _ = snd_pcm_drain(pcm)
        mustPrepare = true
    }

    /// Drops the buffered audio at once (`snd_pcm_drop`) so stop and seek are heard immediately.
    package func cancel() {
        guard let pcm else { return }
        _ = snd_pcm_drop(pcm)
        paused = false
        mustPrepare = true
    }

    /// Pauses with `snd_pcm_pause` when the hardware can; a device that has not started (or was
    /// just cancelled) has nothing playing and counts as paused.
    package func pause() -> Bool {
        guard let pcm else { return false }
        if paused || mustPrepare { return true }
        switch snd_pcm_state(pcm) {
        case SND_PCM_STATE_PREPARED, SND_PCM_STATE_SETUP:
            return true
        case SND_PCM_STATE_RUNNING:
            guard canPause, snd_pcm_pause(pcm, 1) == 0 else { return false }
            paused = true
            return true
        default:
            return false
        }
    }

    /// Closes the PCM without draining it (``drain()`` is the caller's choice), as MPD does.
    package func close() {
        guard let pcm else { return }
        snd_pcm_close(pcm)
        self.pcm = nil
        pollDescriptors.deallocate()
        pollDescriptors = UnsafeMutableBufferPointer(start: nil, count: 0)
        frameSize = 0
        paused = false
        mustPrepare = false
    }

    /// Undoes pause and cancel before writing: unpause, or prepare the dropped device.
    private func resume(_ pcm: OpaquePointer) throws(OutputError) {
        if paused {
            paused = false
            if snd_pcm_pause(pcm, 0) < 0 { mustPrepare = true }
        }
        if mustPrepare {
            mustPrepare = false
            let err = snd_pcm_prepare(pcm)
            if err < 0 { throw .alsa("snd_pcm_prepare() failed", err) }
        }
    }
}

/// What an ALSA device took when it was opened.
package struct ALSAHardwareSetupSummary: Sendable, Equatable {
    /// The format it plays.
    package var format: PCMFormat
    /// Its ring buffer, in frames.
    package var bufferFrames: Int
    /// One period, in frames.
    package var periodFrames: Int
    /// Whether it pauses in hardware.
    package var canPause: Bool
}
