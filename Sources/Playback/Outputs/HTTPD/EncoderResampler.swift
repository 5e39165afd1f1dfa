import CFFmpeg

/// Converts the PCM an `httpd` output takes into what its lossy encoder takes, with
/// libswresample: the sample type and layout (FFmpeg's MP3 and Vorbis encoders want planar
/// samples), the rate (Opus takes 48 kHz only, MP3 a few rates) and the channels (MP3 at most
/// two). The pipeline in front of an output converts sample types only, so the encoder does
/// the rest itself, as MPD's output converts before its encoder.
///
/// The planes it writes into are allocated once; each ``convert(_:frames:)`` takes at most
/// ``maximumInput`` frames, so that they always fit.
final class EncoderResampler {
    /// The most frames one ``convert(_:frames:)`` takes.
    let maximumInput: Int
    private var context: OpaquePointer?
    private let planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    private let planeCount: Int
    private let stride: Int
    private let capacity: Int

    /// A resampler from interleaved `input` to what `codec` takes.
    init(from input: PCMFormat, to codec: EncoderCodec) throws(OutputError) {
        var inputLayout = AVChannelLayout()
        var outputLayout = AVChannelLayout()
        av_channel_layout_default(&inputLayout, Int32(input.channels))
        av_channel_layout_default(&outputLayout, Int32(codec.format.channels))
        defer {
            av_channel_layout_uninit(&inputLayout)
            av_channel_layout_uninit(&outputLayout)
        }
        var status = swr_alloc_set_opts2(
            &context, &outputLayout, codec.sampleFormat, Int32(codec.format.sampleRate),
            &inputLayout, input.sample.avSampleFormat, Int32(input.sampleRate), 0, nil)
        if status >= 0 { status = swr_init(context) }
        guard status >= 0 else {
            swr_free(&context)
            throw OutputError("Failed to set up the encoder's resampler: \(EncoderCodec.describe(status))")
        }
        // 16 Ki output frames per call; the input is cut so that it and the resampler's
        // filter delay (well under a thousand frames) always fit.
        capacity = 16384
        maximumInput = max(64, (capacity - 2048) * input.sampleRate / codec.format.sampleRate)
        planeCount = codec.planar ? codec.format.channels : 1
        stride = codec.planar ? codec.bytesPerSample : codec.bytesPerSample * codec.format.channels
        planes = .allocate(capacity: planeCount)
        for plane in 0..<planeCount {
            planes[plane] = UnsafeMutableRawPointer.allocate(byteCount: capacity * stride, alignment: 16)
                .assumingMemoryBound(to: UInt8.self)
        }
    }

    deinit {
        swr_free(&context)
        for plane in 0..<planeCount { UnsafeMutableRawPointer(planes[plane])?.deallocate() }
        planes.deallocate()
    }

    /// Converts `frames` (at most ``maximumInput``) interleaved frames at `source`; returns how
    /// many frames are ready for ``copy(into:at:from:count:)``.
    func convert(_ source: UnsafeRawPointer, frames: Int) throws(OutputError) -> Int {
        var input: UnsafePointer<UInt8>? = source.assumingMemoryBound(to: UInt8.self)
        return try run(&input, frames: frames)
    }

    /// Hands out what the resampler's filter still holds: the end of the stream.
    func flush() throws(OutputError) -> Int {
        try run(nil, frames: 0)
    }

    private func run(_ input: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, frames: Int) throws(OutputError) -> Int {
        let produced = swr_convert(context, planes, Int32(capacity), input, Int32(frames))
        guard produced >= 0 else { throw OutputError("Failed to resample: \(EncoderCodec.describe(produced))") }
        return Int(produced)
    }

    /// Copies `count` converted frames from frame `from` into the encoder's `frame` at `at`.
    func copy(into frame: UnsafeMutablePointer<AVFrame>, at: Int, from: Int, count: Int) {
        for plane in 0..<planeCount {
            guard let source = planes[plane], let target = frame.pointee.extended_data[plane] else { continue }
            (target + at * stride).update(from: source + from * stride, count: count * stride)
        }
    }
}
