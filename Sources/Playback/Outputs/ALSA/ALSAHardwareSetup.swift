import CALSA

/// Negotiates an ALSA PCM's hardware and software parameters as MPD's `Alsa::SetupHw` and
/// `AlsaSetupSw` do, so that a device MPD plays on opens the same way here.
///
/// - Access is interleaved read/write.
/// - The source's sample type is tried first; if the device refuses it (`EINVAL`), 24-bit (in
///   32-bit words), 32-bit and 16-bit are tried in that order, MPD's probe order, and the
///   first one taken is what the caller must convert to. MPD's extra fallbacks to packed 24-bit
///   (`S24_3LE`) and to the other byte order need a conversion buffer on the write path and are
///   not done: such a device gets 32 or 16 bits instead (through `plughw:` or `default` ALSA
///   converts itself).
/// - Channels and rate are set to the nearest the device has (ALSA's `_near` calls); the result
///   is reported back, again for the caller to convert.
/// - `buffer_time` (default 500 ms, MPD's) and `period_time` (default a quarter of the buffer)
///   are applied as nearest values.
/// - Playback starts once the buffer is full but for one period (start threshold), and a
///   blocked write wakes when a period is free (`avail_min`), as MPD configures it.
enum ALSAHardwareSetup {
    /// What the device took.
    struct Result {
        /// The format the device plays.
        var format: PCMFormat
        /// The ring buffer, in frames.
        var bufferFrames: UInt
        /// One period, in frames.
        var periodFrames: UInt
        /// Whether `snd_pcm_pause` works on this device.
        var canPause: Bool
    }

    /// MPD's order of sample types to try when the source's is refused.
    static let probeOrder: [PCMFormat.Sample] = [.s24, .s32, .s16]

    /// Configures `pcm` for `requested` and returns what it took.
    static func configure(
        _ pcm: OpaquePointer, format requested: PCMFormat, bufferTime: UInt32, periodTime: UInt32
    ) throws(OutputError) -> Result {
        var allocated: OpaquePointer?
        guard snd_pcm_hw_params_malloc(&allocated) == 0, let hw = allocated else {
            throw OutputError("snd_pcm_hw_params_malloc() failed")
        }
        defer { snd_pcm_hw_params_free(hw) }

        var err = snd_pcm_hw_params_any(pcm, hw)
        if err < 0 { throw .alsa("snd_pcm_hw_params_any() failed", err) }
        err = snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)
        if err < 0 { throw .alsa("snd_pcm_hw_params_set_access() failed", err) }

        var format = requested
        err = snd_pcm_hw_params_set_format(pcm, hw, alsaFormat(requested.sample))
        for sample in probeOrder where err == -EINVAL && sample != requested.sample {
            err = snd_pcm_hw_params_set_format(pcm, hw, alsaFormat(sample))
            if err == 0 { format.sample = sample }
        }
        if err < 0 { throw .alsa("Failed to configure format \(requested.sample.mpdName)", err) }

        var channels = UInt32(requested.channels)
        err = snd_pcm_hw_params_set_channels_near(pcm, hw, &channels)
        if err < 0 { throw .alsa("Failed to configure \(requested.channels) channels", err) }
        format.channels = Int(channels)

        var rate = UInt32(requested.sampleRate)
        err = snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, nil)
        if err < 0 { throw .alsa("Failed to configure sample rate \(requested.sampleRate) Hz", err) }
        if rate == 0 { throw OutputError("Failed to configure sample rate \(requested.sampleRate) Hz") }
        format.sampleRate = Int(rate)

        var buffer = bufferTime
        err = snd_pcm_hw_params_set_buffer_time_near(pcm, hw, &buffer, nil)
        if err < 0 { throw .alsa("snd_pcm_hw_params_set_buffer_time_near() failed", err) }
        var period = periodTime
        if period == 0, buffer >= 10_000 { period = buffer / 4 }
        if period > 0 {
            err = snd_pcm_hw_params_set_period_time_near(pcm, hw, &period, nil)
            if err < 0 { throw .alsa("snd_pcm_hw_params_set_period_time_near() failed", err) }
        }

        err = snd_pcm_hw_params(pcm, hw)
        if err < 0 { throw .alsa("snd_pcm_hw_params() failed", err) }

        var bufferFrames: snd_pcm_uframes_t = 0
        err = snd_pcm_hw_params_get_buffer_size(hw, &bufferFrames)
        if err < 0 { throw .alsa("snd_pcm_hw_params_get_buffer_size() failed", err) }
        var periodFrames: snd_pcm_uframes_t = 0
        err = snd_pcm_hw_params_get_period_size(hw, &periodFrames, nil)
        if err < 0 { throw .alsa("snd_pcm_hw_params_get_period_size() failed", err) }
        let canPause = snd_pcm_hw_params_can_pause(hw) != 0

        try configureSoftware(
            pcm, startThreshold: bufferFrames - min(periodFrames, bufferFrames),
            availMin: max(periodFrames, 1))
        return Result(
            format: format, bufferFrames: bufferFrames, periodFrames: max(periodFrames, 1), canPause: canPause)
    }

    /// MPD's `AlsaSetupSw`.
    private static func configureSoftware(
        _ pcm: OpaquePointer, startThreshold: snd_pcm_uframes_t, availMin: snd_pcm_uframes_t
    ) throws(OutputError) {
        var allocated: OpaquePointer?
        guard snd_pcm_sw_params_malloc(&allocated) == 0, let sw = allocated else {
            throw OutputError("snd_pcm_sw_params_malloc() failed")
        }
        defer { snd_pcm_sw_params_free(sw) }
        var err = snd_pcm_sw_params_current(pcm, sw)
        if err < 0 { throw .alsa("snd_pcm_sw_params_current() failed", err) }
        err = snd_pcm_sw_params_set_start_threshold(pcm, sw, startThreshold)
        if err < 0 { throw .alsa("snd_pcm_sw_params_set_start_threshold() failed", err) }
        err = snd_pcm_sw_params_set_avail_min(pcm, sw, availMin)
        if err < 0 { throw .alsa("snd_pcm_sw_params_set_avail_min() failed", err) }
        err = snd_pcm_sw_params(pcm, sw)
        if err < 0 { throw .alsa("snd_pcm_sw_params() failed", err) }
    }

    /// The ALSA sample format for a PCM sample type, in the machine's byte order (`S24` is
    /// ALSA's 24 bits in the low bytes of a 32-bit word, the layout of ``PCMFormat/Sample/s24``).
    static func alsaFormat(_ sample: PCMFormat.Sample) -> snd_pcm_format_t {
        switch sample {
        case .s16: SND_PCM_FORMAT_S16
        case .s24: SND_PCM_FORMAT_S24
        case .s32: SND_PCM_FORMAT_S32
        case .float: SND_PCM_FORMAT_FLOAT
        }
    }
}

/// ALSA's error wording for ``OutputError``.
extension OutputError {
    /// `"<context>: <snd_strerror(code)>"`, as MPD words a failed ALSA call.
    static func alsa(_ context: String, _ code: Int32) -> OutputError {
        OutputError("\(context): \(String(cString: snd_strerror(code)))", code: code)
    }

    /// The same for the `snd_pcm_sframes_t` results of the transfer calls.
    static func alsa(_ context: String, _ code: Int) -> OutputError {
        alsa(context, Int32(truncatingIfNeeded: code))
    }
}
