import CFFmpeg
import MusicModel
import Settings

/// The FFmpeg objects behind one ``AudioDecoder``: the opened container, its best audio stream
/// and an opened codec, plus what the decoder needs to know about them. Built in one place so
/// a failure half-way frees exactly what was made.
struct DecoderInput {
    /// The demuxer.
    var format: UnsafeMutablePointer<AVFormatContext>
    /// The audio stream being decoded.
    var stream: UnsafeMutablePointer<AVStream>
    /// The opened decoder.
    var codec: UnsafeMutablePointer<AVCodecContext>
    /// The options the demuxer's own inputs get (``NestedInputOptions``), freed with it.
    var nestedOptions: OpaquePointer?

    /// FFmpeg logs to stderr by default; Tonearm reports decoding problems itself.
    private static let loggingSilenced: Void = av_log_set_level(AV_LOG_QUIET)

    /// Opens `path` (a file, or a stream's URL), finds its best audio stream (other streams,
    /// such as cover art, are discarded by the demuxer) and opens a decoder for it. Every
    /// blocking call returns early once `interrupt` is raised.
    static func open(path: String, interrupt: DecoderInterrupt, network: StreamInputSettings) throws(DecoderError)
        -> DecoderInput
    {
        _ = loggingSilenced
        var format: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        guard format != nil else { throw DecoderError(.open, path: path, code: TONEARM_AVERROR_ENOMEM) }
        format?.pointee.interrupt_callback = interrupt.callback
        let isStream = !path.hasPrefix("/")
        if isStream {
            // To learn the format, FFmpeg would read seconds of a live stream as it arrives
            // (up to 1 MiB, then 5 s of audio) before the first sample; the demuxers of radio's
            // formats know a stream from its first frames. (An ID3 tag in front is skipped
            // before the probe counts.)
            format?.pointee.format_probesize = Self.streamProbeBytes
            format?.pointee.max_analyze_duration = Self.streamAnalyzeDuration
        }
        var options = isStream ? Self.streamOptions(network) : nil
        var nestedOptions = isStream ? Self.dictionary(Self.certificateSettings(network)) : nil
        NestedInputOptions.install(nestedOptions, on: format)
        if isStream { interrupt.watch(Double(streamTimeout) / 1e6) }
        defer { interrupt.unwatch() }
        // On failure FFmpeg frees the context it was given.
        let opened = avformat_open_input(&format, isStream ? RemoteStream.lowercasingScheme(path) : path, nil, &options)
        av_dict_free(&options)
        guard opened >= 0, let openedFormat = format else {
            av_dict_free(&nestedOptions)
            if interrupt.hasTimedOut { throw DecoderError(.open, path: path, reason: Self.timeoutReason) }
            let unreadable = [TONEARM_AVERROR_ENOENT, TONEARM_AVERROR_EACCES, TONEARM_AVERROR_EISDIR].contains(opened)
            throw DecoderError(unreadable ? .unreadable : .open, path: path, code: opened)
        }
        var codec: UnsafeMutablePointer<AVCodecContext>?
        var complete = false
        defer {
            if !complete {
                avcodec_free_context(&codec)
                avformat_close_input(&format)
                av_dict_free(&nestedOptions)
            }
        }
        let probed = avformat_find_stream_info(openedFormat, nil)
        if probed < 0 {
            if interrupt.hasTimedOut { throw DecoderError(.open, path: path, reason: Self.timeoutReason) }
            throw DecoderError(.open, path: path, code: probed)
        }
        var decoder: UnsafePointer<AVCodec>?
        let index = av_find_best_stream(openedFormat, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0)
        guard index >= 0, let decoder, let stream = openedFormat.pointee.streams[Int(index)] else {
            throw DecoderError(
                .noAudio, path: path, reason: index < 0 ? DecoderError.text(of: index) : "no audio stream")
        }
        for other in 0..<Int(openedFormat.pointee.nb_streams) where other != Int(index) {
            openedFormat.pointee.streams[other]?.pointee.discard = AVDISCARD_ALL
        }
        codec = avcodec_alloc_context3(decoder)
        guard let openedCodec = codec else { throw DecoderError(.noAudio, path: path, code: TONEARM_AVERROR_ENOMEM) }
        var status = avcodec_parameters_to_context(openedCodec, stream.pointee.codecpar)
        // Lets libavcodec move timestamps along when it trims skip samples, so a frame's
        // timestamp stays the position of its first returned sample.
        openedCodec.pointee.pkt_timebase = stream.pointee.time_base
        if status >= 0 { status = avcodec_open2(openedCodec, decoder, nil) }
        if status < 0 { throw DecoderError(.noAudio, path: path, code: status) }
        complete = true
        return DecoderInput(format: openedFormat, stream: stream, codec: openedCodec, nestedOptions: nestedOptions)
    }

    /// How long a stream may keep the decoder waiting for a connection or for data before it
    /// fails, in microseconds. Tonearm's own bound: MPD 0.23 gives up on a connection after
    /// 10 s too, but waits for data without end.
    static let streamTimeout = 10_000_000

    /// What `status` says when a stream sent nothing for ``streamTimeout``.
    static let timeoutReason = "no data for 10 seconds"

    /// How much of a stream FFmpeg reads to tell its container, in bytes.
    static let streamProbeBytes: Int32 = 64 << 10
    /// How much of a stream FFmpeg reads to learn its codec's parameters, in microseconds.
    static let streamAnalyzeDuration: Int64 = 500_000

    /// FFmpeg's options for a stream's input. Only the network protocols: an HLS playlist or
    /// a redirect from a remote server must not make the decoder read local files. FFmpeg's
    /// own reconnecting is left off: a server that ignores the range of the retry sends the
    /// file again from its start, which FFmpeg would play on without end. A live stream is
    /// connected again by ``AudioDecoder`` instead; a remote file that breaks off ends there,
    /// as with MPD.
    static func streamOptions(_ network: StreamInputSettings) -> OpaquePointer? {
        dictionary(streamSettings(network))
    }

    /// ``streamOptions(_:)`` as keys and values.
    private static func streamSettings(_ network: StreamInputSettings) -> [(key: String, value: String)] {
        var settings = [
            ("protocol_whitelist", "http,https,tls,tcp,crypto,httpproxy"),
            ("timeout", String(streamTimeout)),
            ("icy", "1"),
            ("user_agent", "Tonearm"),
        ]
        settings += certificateSettings(network)
        if let proxy = network.proxy { settings.append(("http_proxy", proxy)) }
        return settings
    }

    /// The options that check a server's certificate: part of ``streamSettings(_:)``, and all
    /// that the inputs the demuxer opens itself need added (``NestedInputOptions``).
    static func certificateSettings(_ network: StreamInputSettings) -> [(key: String, value: String)] {
        var settings: [(key: String, value: String)] = []
        if network.verifyPeer { settings.append(("tls_verify", "1")) }
        if let authorities = network.certificateAuthorities { settings.append(("ca_file", authorities)) }
        return settings
    }

    /// `settings` as an `AVDictionary` the caller frees; `nil` when empty.
    static func dictionary(_ settings: [(key: String, value: String)]) -> OpaquePointer? {
        var options: OpaquePointer?
        for (key, value) in settings { av_dict_set(&options, key, value, 0) }
        return options
    }

    /// Frees the codec and closes the container.
    func close() {
        var codec: UnsafeMutablePointer<AVCodecContext>? = codec
        avcodec_free_context(&codec)
        var format: UnsafeMutablePointer<AVFormatContext>? = format
        avformat_close_input(&format)
        var nestedOptions = nestedOptions
        av_dict_free(&nestedOptions)
    }

    /// The stream's duration in seconds as MPD's FFmpeg plugin takes it: the stream's own when
    /// the container states one, else the container's estimate.
    var duration: Double? {
        let stream = stream.pointee
        if stream.duration != TONEARM_AV_NOPTS_VALUE, stream.duration > 0 {
            return Double(stream.duration) * av_q2d(stream.time_base)
        }
        let total = format.pointee.duration
        guard total != TONEARM_AV_NOPTS_VALUE, total > 0 else { return nil }
        return Double(total) / Double(AV_TIME_BASE)
    }

    /// Where the audible stream ends, in samples from its first audible one, when the container
    /// says so and FFmpeg 5.1 would not trim it: the end padding of AAC (and other codecs) in
    /// MP4/M4A. libavformat's mov demuxer applies the edit list's start (the encoder delay) as
    /// skip samples but lets the last frame play whole, so the encoder's padding would be heard
    /// as a gap between gapless tracks. iTunes' `iTunSMPB` tag, when present, gives the sample
    /// count; otherwise the edit list's duration, which FFmpeg reports as the stream duration.
    /// Other containers carry the end in FFmpeg's skip-samples side data, which libavcodec
    /// applies itself (MP3's LAME header, Ogg's final granule position).
    func audibleEnd(sampleRate: Int) -> Int64? {
        guard let name = format.pointee.iformat?.pointee.name, String(cString: name).hasPrefix("mov,") else {
            return nil
        }
        for dictionary in [stream.pointee.metadata, format.pointee.metadata] {
            if let entry = av_dict_get(dictionary, "iTunSMPB", nil, 0), let value = entry.pointee.value,
                let samples = Self.iTunesSampleCount(String(cString: value))
            {
                return samples
            }
        }
        let duration = stream.pointee.duration
        guard duration != TONEARM_AV_NOPTS_VALUE, duration > 0 else { return nil }
        return av_rescale_q(duration, stream.pointee.time_base, AVRational(num: 1, den: Int32(sampleRate)))
    }

    /// The original sample count in an `iTunSMPB` value (` 00000000 00000840 000001CA
    /// 00000000003F1A36 …`: a zero, the priming samples, the padding, the count, in hex).
    static func iTunesSampleCount(_ value: String) -> Int64? {
        let fields = value.split(separator: " ")
        guard fields.count >= 4, let count = Int64(fields[3], radix: 16), count > 0 else { return nil }
        return count
    }

    /// Samples to decode ahead of a seek target so the decoder's state (MP3's bit reservoir,
    /// the overlap of AAC's and Opus's transforms) is rebuilt by the time the target is
    /// reached; none for lossless codecs, whose frames stand alone.
    var seekPreroll: Int64 {
        let parameters = stream.pointee.codecpar.pointee
        guard let descriptor = avcodec_descriptor_get(parameters.codec_id),
            descriptor.pointee.props & AV_CODEC_PROP_LOSSY != 0
        else { return 0 }
        return Int64(max(Int(parameters.seek_preroll), 3 * max(Int(parameters.frame_size), 1152)))
    }
}
