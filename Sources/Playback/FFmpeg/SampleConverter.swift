import CFFmpeg

extension PCMFormat.Sample {
    /// The packed FFmpeg format that holds this sample type. `s24` travels as `S32` (FFmpeg has
    /// no 24-in-32 format); the decoder shifts it down to the low bytes as the last step.
    var avSampleFormat: AVSampleFormat {
        switch self {
        case .s16: AV_SAMPLE_FMT_S16
        case .s24, .s32: AV_SAMPLE_FMT_S32
        case .float: AV_SAMPLE_FMT_FLT
        }
    }

    /// The sample type MPD would name for FFmpeg's decoded `format`: 24 when a 32-bit
    /// container carries at most 24 significant bits (24-bit FLAC, WAV), as MPD's `audio` shows
    /// it; 8-bit audio widens to 16 and doubles narrow to float, the nearest types outputs take.
    init(_ format: AVSampleFormat, bitsPerRawSample: Int32) {
        switch av_get_packed_sample_fmt(format) {
        case AV_SAMPLE_FMT_U8, AV_SAMPLE_FMT_S16: self = .s16
        case AV_SAMPLE_FMT_S32: self = (17...24).contains(bitsPerRawSample) ? .s24 : .s32
        case AV_SAMPLE_FMT_S64: self = .s32
        default: self = .float
        }
    }
}

/// The failed FFmpeg call's return code, for the decoder to turn into a ``DecoderError``.
struct FFmpegFailure: Error {
    /// The negative `AVERROR` code.
    var code: Int32
}

/// Interleaved output PCM that was produced but not yet handed to the caller: a conversion
/// makes a whole frame's worth at once, while `read` may ask for less. Grows to the largest
/// frame seen and then stays, so steady-state decoding does not allocate.
final class PCMStaging {
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    private var start = 0
    private var end = 0

    /// Creates an empty buffer with room for a typical frame.
    init(capacity: Int = 64 * 1024) {
        self.capacity = capacity
        storage = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// Bytes waiting to be taken.
    var byteCount: Int { end - start }

    /// Forgets what is waiting (after a seek or an output format change).
    func reset() {
        start = 0
        end = 0
    }

    /// Makes room for `bytes` more after what is waiting and returns where they go.
    func reserve(_ bytes: Int) -> UnsafeMutableRawPointer {
        if start == end { reset() }
        if capacity - end < bytes {
            let waiting = byteCount
            if capacity < waiting + bytes {
                let grown = UnsafeMutableRawPointer.allocate(byteCount: waiting + bytes, alignment: 16)
                grown.copyMemory(from: storage + start, byteCount: waiting)
                storage.deallocate()
                storage = grown
                capacity = waiting + bytes
            } else {
                (storage).copyMemory(from: storage + start, byteCount: waiting)
            }
            start = 0
            end = waiting
        }
        return storage + end
    }

    /// Counts `bytes` written at the pointer ``reserve(_:)`` returned.
    func commit(_ bytes: Int) { end += bytes }

    /// Copies up to `maxBytes` of what is waiting to `destination`; returns the count.
    func take(into destination: UnsafeMutableRawPointer, maxBytes: Int) -> Int {
        let count = min(maxBytes, byteCount)
        destination.copyMemory(from: storage + start, byteCount: count)
        start += count
        return count
    }
}

/// A libswresample context converting frames of one input format (sample type, rate, channel
/// layout) to one output ``PCMFormat``. The decoder replaces it when either side changes.
final class SampleConverter {
    /// The format it produces.
    let output: PCMFormat
    private var context: OpaquePointer?
    private let inputFormat: AVSampleFormat
    private let inputRate: Int32
    private var inputLayout = AVChannelLayout()
    private let inputPlanes: UnsafeMutablePointer<UnsafePointer<UInt8>?>
    private let planeCount: Int

    /// Sets up conversion from `frame`'s format to `output`.
    init(frame: UnsafePointer<AVFrame>, output: PCMFormat) throws(FFmpegFailure) {
        self.output = output
        inputFormat = AVSampleFormat(rawValue: frame.pointee.format)
        inputRate = frame.pointee.sample_rate
        let channels = frame.pointee.ch_layout.nb_channels
        planeCount = av_sample_fmt_is_planar(inputFormat) != 0 ? Int(channels) : 1
        inputPlanes = .allocate(capacity: max(planeCount, 1))
        if frame.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
            av_channel_layout_default(&inputLayout, channels)
        } else {
            var source = frame.pointee.ch_layout
            _ = av_channel_layout_copy(&inputLayout, &source)
        }
        var outputLayout = AVChannelLayout()
        av_channel_layout_default(&outputLayout, Int32(output.channels))
        defer { av_channel_layout_uninit(&outputLayout) }
        var status = swr_alloc_set_opts2(
            &context, &outputLayout, output.sample.avSampleFormat, Int32(output.sampleRate),
            &inputLayout, inputFormat, inputRate, 0, nil)
        if status >= 0 { status = swr_init(context) }
        if status < 0 { throw FFmpegFailure(code: status) }
    }

    deinit {
        swr_free(&context)
        av_channel_layout_uninit(&inputLayout)
        inputPlanes.deallocate()
    }

    /// Whether `frame` has the input format this converter was made for.
    func accepts(_ frame: UnsafePointer<AVFrame>) -> Bool {
        var layout = frame.pointee.ch_layout
        return frame.pointee.format == inputFormat.rawValue && frame.pointee.sample_rate == inputRate
            && (av_channel_layout_compare(&inputLayout, &layout) == 0
                || layout.order == AV_CHANNEL_ORDER_UNSPEC && layout.nb_channels == inputLayout.nb_channels)
    }

    /// Output frames still inside the resampler's filter, which only ``flush(into:)`` releases.
    var delay: Int { Int(swr_get_delay(context, Int64(output.sampleRate))) }

    /// Converts `count` samples of `frame` starting at sample `offset` and appends them to `staging`.
    func convert(_ frame: UnsafePointer<AVFrame>, offset: Int, count: Int, into staging: PCMStaging)
        throws(FFmpegFailure)
    {
        let bytesPerSample = Int(av_get_bytes_per_sample(inputFormat))
        let stride = planeCount == 1 ? bytesPerSample * Int(frame.pointee.ch_layout.nb_channels) : bytesPerSample
        for plane in 0..<planeCount {
            inputPlanes[plane] = UnsafePointer(frame.pointee.extended_data[plane]! + offset * stride)
        }
        try run(input: inputPlanes, count: Int32(count), into: staging)
    }

    /// Drains what the resampler holds back, at the end of the stream or before it is replaced.
    func flush(into staging: PCMStaging) throws(FFmpegFailure) {
        try run(input: nil, count: 0, into: staging)
    }

    private func run(input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int32, into staging: PCMStaging)
        throws(FFmpegFailure)
    {
        let room = swr_get_out_samples(context, count)
        guard room > 0 else { return }
        var destination: UnsafeMutablePointer<UInt8>? = staging.reserve(Int(room) * output.frameSize)
            .assumingMemoryBound(to: UInt8.self)
        let produced = swr_convert(context, &destination, room, input, count)
        if produced < 0 { throw FFmpegFailure(code: produced) }
        staging.commit(Int(produced) * output.frameSize)
    }
}
