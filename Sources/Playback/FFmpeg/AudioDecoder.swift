import CFFmpeg
import Foundation
import MusicModel
import Settings

/// Decodes one file to interleaved PCM. Not thread-safe: one decoder thread owns it.
///
/// The pipeline's decoder thread opens one per song and pulls PCM with ``read(into:format:)``
/// into its preallocated chunks. Everything FFmpeg-specific stays behind this class.
///
/// Gapless playback depends on the decoder returning exactly the audible samples: the encoder
/// delay and padding are trimmed (libavcodec applies the skip-samples side data that FFmpeg's
/// demuxers derive from MP3's LAME header, Opus's pre-skip, Ogg's final granule and MP4's edit
/// list; the decoder itself cuts MP4's end padding, which FFmpeg 5.1 leaves in), so song B's
/// first sample follows song A's last one.
package final class AudioDecoder {
    /// The file being decoded, for error messages.
    package let path: String
    /// The stream's own format, as MPD's `audio` status shows the decoder's input: FLAC 16-bit
    /// is `44100:16:2`, FFmpeg's float decoders (MP3, AAC, Opus, Vorbis) give `:f:`.
    package let sourceFormat: PCMFormat
    /// The duration in seconds, when the container states or estimates one.
    package let duration: Double?
    /// The ReplayGain values from the file's tags, if any.
    package let replayGain: ReplayGainInfo?
    /// The MixRamp profile from the file's tags, for crossfading into and out of the song.
    package let mixRamp: MixRampInfo
    /// Kbit/s of the packet decoded last (0 when unknown), for MPD's `status` `bitrate`: it
    /// follows variable bit rates as they play.
    package private(set) var bitrate = 0

    /// The opened input; a live stream's is replaced when its connection is made again.
    var input: DecoderInput
    /// Raised by the controls; FFmpeg's network calls for this input end early then. Kept
    /// here because the input's callback points at it.
    let interrupt: DecoderInterrupt
    /// A stream's own tags and live title; `nil` for a file, whose tags the database has.
    var streamMetadata: StreamMetadata?
    /// How a stream is fetched.
    let network: StreamInputSettings
    /// Connections of a live stream made again since it last played ``steadyAudio`` seconds.
    var reconnects = 0
    /// Where the last connection made again started, in source samples.
    var reconnectedAt: Int64 = 0
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    /// Samples per second of the source: the unit of every position below.
    let sourceRate: Int
    private let timeBase: AVRational
    private let startTime: Int64
    /// See ``DecoderInput/audibleEnd(sampleRate:)``.
    private let audibleEnd: Int64?
    private let seekPreroll: Int64

    /// The source sample the next sample taken from `frame` is.
    var cursor: Int64 = 0
    /// Samples of `frame` already used, and the number it may give in all (after trimming).
    private var frameOffset = 0
    private var frameLimit = 0
    /// After a seek: decoded audio before this sample is discarded, and frame positions come
    /// from timestamps rather than counting.
    private var seekTarget: Int64?
    /// The demuxer is exhausted and the decoder has been told to drain.
    var draining = false
    /// No more frames will come (the decoder is drained, or the audible end was reached).
    private var exhausted = false
    private var converterFlushed = false
    private var consecutiveErrors = 0
    private var converter: SampleConverter?
    private let staging = PCMStaging()
    /// The format of what `staging` holds.
    private var stagingFormat: PCMFormat?

    /// Decoding errors in a row after which a file counts as undecodable rather than damaged
    /// in places.
    private static let errorLimit = 64

    /// Opens `path` (a file, or a stream's URL): its container, its best audio stream and a
    /// decoder for it. Opening and reading a stream end early once `interrupt` is raised.
    init(path: String, interrupt: DecoderInterrupt, network: StreamInputSettings = StreamInputSettings())
        throws(DecoderError)
    {
        let input = try DecoderInput.open(path: path, interrupt: interrupt, network: network)
        guard let packet = av_packet_alloc(), let frame = av_frame_alloc() else {
            input.close()
            throw DecoderError(.decode, path: path, code: TONEARM_AVERROR_ENOMEM)
        }
        self.path = path
        self.input = input
        self.interrupt = interrupt
        self.network = network
        streamMetadata = path.hasPrefix("/") ? nil : StreamMetadata(input)
        self.packet = packet
        self.frame = frame
        let codec = input.codec.pointee
        let stream = input.stream.pointee
        sourceRate = Int(codec.sample_rate)
        timeBase = stream.time_base
        startTime = stream.start_time == TONEARM_AV_NOPTS_VALUE ? 0 : stream.start_time
        duration = input.duration
        replayGain = ReplayGainInfo.read(format: input.format, stream: input.stream)
        mixRamp = MixRampInfo.read(format: input.format, stream: input.stream)
        seekPreroll = input.seekPreroll
        let bits =
            codec.bits_per_raw_sample > 0 ? codec.bits_per_raw_sample : stream.codecpar.pointee.bits_per_raw_sample
        sourceFormat = PCMFormat(
            sampleRate: sourceRate,
            sample: PCMFormat.Sample(codec.sample_fmt, bitsPerRawSample: bits),
            channels: Int(codec.ch_layout.nb_channels))
        audibleEnd = sourceRate > 0 ? input.audibleEnd(sampleRate: sourceRate) : nil
        guard sourceRate > 0, sourceFormat.channels > 0, codec.sample_fmt != AV_SAMPLE_FMT_NONE else {
            throw DecoderError(.noAudio, path: path, reason: "unknown sample format")
        }
    }

    /// Opens the file at `path`, with nothing to interrupt it (tools and tests).
    package convenience init(path: String) throws(DecoderError) {
        try self.init(path: path, interrupt: DecoderInterrupt())
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&packet)
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&frame)
        input.close()
    }

    /// Seconds from the start of the audible stream to the next sample ``read(into:format:)``
    /// returns. Exact in source samples; while resampling, the samples still inside the
    /// resampler and not yet returned are subtracted.
    package var position: Double {
        var seconds = Double(cursor) / Double(sourceRate)
        if let stagingFormat {
            let pending = staging.byteCount / stagingFormat.frameSize + (converter?.delay ?? 0)
            seconds -= Double(pending) / Double(stagingFormat.sampleRate)
        }
        return max(0, seconds)
    }

    /// The latest seek target in seconds (about 31 years): past the end of any song, and small
    /// enough that it stays inside Int64 in every time base.
    static let latestSeekTarget: Double = 1e9

    /// Moves to `seconds` from the start. The container seeks to a packet before the target
    /// (earlier still for lossy codecs, to rebuild the decoder's state) and decoded audio
    /// before the target sample is dropped, so the next ``read(into:format:)`` starts at that
    /// sample. Past the end, reading returns 0.
    package func seek(to seconds: Double) throws(DecoderError) {
        // A client may ask for any float (`seekcur inf`, `seek 0 1e30`, `nan`): a time past
        // every song is past the end, and NaN is the start, rather than a trap converting to Int64.
        let bounded = seconds.isNaN ? 0 : min(max(0, seconds), Self.latestSeekTarget)
        let target = Int64((bounded * Double(sourceRate)).rounded())
        // The preroll may reach before the start: that asks for the very first packet, which
        // for MP4 is the priming packet before timestamp 0 that the decoder needs as much.
        let timestamp =
            startTime + av_rescale_q(target - seekPreroll, AVRational(num: 1, den: Int32(sourceRate)), timeBase)
        if streamMetadata != nil, input.format.pointee.pb?.pointee.seekable == 0 {
            // A remote file whose server serves no ranges cannot move (FFmpeg's generic seek
            // would read on and then fail to go back): the decoder was just opened for the
            // seek, so it reads on to the target itself.
            guard target >= cursor else { throw DecoderError(.seek, path: path, reason: "the stream cannot seek") }
            staging.reset()
            converter = nil
            seekTarget = target
            _ = try nextFrame()
            return
        }
        var status = av_seek_frame(input.format, input.stream.pointee.index, timestamp, AVSEEK_FLAG_BACKWARD)
        if status < 0, timestamp < startTime {
            status = av_seek_frame(input.format, input.stream.pointee.index, startTime, AVSEEK_FLAG_BACKWARD)
        }
        if status < 0 { throw DecoderError(.seek, path: path, code: status) }
        avcodec_flush_buffers(input.codec)
        converter = nil
        converterFlushed = false
        staging.reset()
        stagingFormat = nil
        draining = false
        exhausted = false
        frameOffset = 0
        frameLimit = 0
        cursor = target
        seekTarget = target
        // Decode up to the target now, so `position` tells where reading really resumes.
        if try !nextFrame(), cursor == target, let duration {
            // Past the end some demuxers (WAV) "succeed" and then return nothing: the position
            // is the end of the stream, not where the caller aimed. (Only then: a duration
            // estimated from the bit rate may be short, so it never limits the seek itself.)
            cursor = min(target, Int64((duration * Double(sourceRate)).rounded()))
        }
    }

    /// Fills `buffer` with whole frames of `format` PCM and returns the byte count: 0 only at
    /// the end of the stream. Converted with libswresample when `format` differs from the
    /// source's; an s16 source read as s16 is copied bit for bit. A packet FFmpeg cannot decode
    /// is skipped; the file fails only when decoding cannot go on.
    package func read(into buffer: UnsafeMutableRawBufferPointer, format: PCMFormat) throws(DecoderError) -> Int {
        let frameSize = format.frameSize
        guard frameSize > 0, format.sampleRate > 0 else {
            throw DecoderError(.decode, path: path, reason: "cannot convert to \(format)")
        }
        let capacity = buffer.count - buffer.count % frameSize
        guard capacity > 0, let base = buffer.baseAddress else { return 0 }
        if let stagingFormat, stagingFormat != format {
            // The caller switched formats: what was converted for the old one is dropped.
            staging.reset()
            converter = nil
        }
        stagingFormat = format
        var written = 0
        while written < capacity {
            if staging.byteCount > 0 {
                written += staging.take(into: base + written, maxBytes: capacity - written)
            } else if frameOffset < frameLimit {
                written += try take(into: base + written, room: (capacity - written) / frameSize, format: format)
            } else if try nextFrame() {
                continue
            } else if let converter, !converterFlushed {
                converterFlushed = true
                do throws(FFmpegFailure) {
                    try converter.flush(into: staging)
                } catch {
                    throw DecoderError(.decode, path: path, code: error.code)
                }
            } else {
                break
            }
        }
        if format.sample == .s24 { Self.shiftToLowBytes(base, bytes: written) }
        return written
    }

    /// Moves samples of the current frame out: straight into the caller's buffer when the
    /// frame already is `format` (returns the bytes written), else through the converter into
    /// `staging` (returns 0; the caller's loop takes them from there).
    private func take(into destination: UnsafeMutableRawPointer, room: Int, format: PCMFormat) throws(DecoderError)
        -> Int
    {
        let available = frameLimit - frameOffset
        let data = frame.pointee
        if data.format == format.sample.avSampleFormat.rawValue, data.sample_rate == Int32(format.sampleRate),
            Int(data.ch_layout.nb_channels) == format.channels, converter == nil
        {
            let count = min(available, room)
            destination.copyMemory(
                from: data.extended_data[0]! + frameOffset * format.frameSize, byteCount: count * format.frameSize)
            frameOffset += count
            cursor += Int64(count)
            return count * format.frameSize
        }
        do throws(FFmpegFailure) {
            if let current = converter, !current.accepts(frame) || current.output != format {
                // The stream changed format mid-way: release what the old resampler holds first.
                try current.flush(into: staging)
                converter = nil
            }
            let active: SampleConverter
            if let converter {
                active = converter
            } else {
                active = try SampleConverter(frame: frame, output: format)
                converter = active
            }
            try active.convert(frame, offset: frameOffset, count: available, into: staging)
        } catch {
            throw DecoderError(.decode, path: path, code: error.code)
        }
        frameOffset = frameLimit
        cursor += Int64(available)
        return 0
    }

    /// Decodes until a frame with samples to return is ready, trimming it to the seek target
    /// and the audible end; false at the end of the stream.
    private func nextFrame() throws(DecoderError) -> Bool {
        frameOffset = 0
        frameLimit = 0
        while try receiveFrame() {
            let count = Int64(frame.pointee.nb_samples)
            guard count > 0 else { continue }
            var start = cursor
            var offset: Int64 = 0
            if let target = seekTarget {
                start = timestampPosition() ?? target
                if start + count <= target {
                    cursor = min(start + count, audibleEnd ?? .max)
                    continue
                }
                offset = max(0, target - start)
                seekTarget = nil
            }
            var limit = count
            if let end = audibleEnd {
                limit = min(count, end - start)
                if limit <= offset {
                    cursor = end
                    exhausted = true
                    return false
                }
            }
            cursor = start + offset
            frameOffset = Int(offset)
            frameLimit = Int(limit)
            return true
        }
        return false
    }

    /// The source sample at which the current frame starts, from its timestamp.
    private func timestampPosition() -> Int64? {
        let timestamp = frame.pointee.best_effort_timestamp
        guard timestamp != TONEARM_AV_NOPTS_VALUE else { return nil }
        return av_rescale_q(timestamp - startTime, timeBase, AVRational(num: 1, den: Int32(sourceRate)))
    }

    /// Runs the send/receive loop until libavcodec returns a frame (true) or is drained (false).
    private func receiveFrame() throws(DecoderError) -> Bool {
        av_frame_unref(frame)
        while !exhausted {
            let received = avcodec_receive_frame(input.codec, frame)
            if received == 0 {
                consecutiveErrors = 0
                return true
            }
            if received == TONEARM_AVERROR_EOF || (received == TONEARM_AVERROR_EAGAIN && draining) {
                exhausted = true
                break
            }
            if received != TONEARM_AVERROR_EAGAIN {
                try skipDamaged(received)
                continue
            }
            try feedPacket()
        }
        return false
    }

    /// Reads the next packet of the stream and sends it to the decoder; at the end of the
    /// container, tells the decoder to drain.
    private func feedPacket() throws(DecoderError) {
        if streamMetadata != nil { interrupt.watch(Double(DecoderInput.streamTimeout) / 1e6) }
        let status = av_read_frame(input.format, packet)
        interrupt.unwatch()
        if status == TONEARM_AVERROR_EXIT, interrupt.hasTimedOut {
            throw DecoderError(.decode, path: path, reason: DecoderInput.timeoutReason)
        }
        if status < 0, status != TONEARM_AVERROR_EXIT, try reconnectLiveStream(after: status) { return }
        if status < 0 {
            // A truncated file ends where its data ends; only a real I/O error fails the song.
            let atEnd = status == TONEARM_AVERROR_EOF || input.format.pointee.pb?.pointee.eof_reached != 0
            guard atEnd || status == TONEARM_AVERROR_INVALIDDATA else {
                throw DecoderError(.decode, path: path, code: status)
            }
            draining = true
            _ = avcodec_send_packet(input.codec, nil)
            return
        }
        defer { av_packet_unref(packet) }
        if reconnects > 0, cursor - reconnectedAt > Int64(Self.steadyAudio * Double(sourceRate)) { reconnects = 0 }
        streamMetadata?.poll(input)
        guard packet.pointee.stream_index == input.stream.pointee.index else { return }
        noteBitrate()
        let sent = avcodec_send_packet(input.codec, packet)
        if sent < 0, sent != TONEARM_AVERROR_EAGAIN { try skipDamaged(sent) }
    }

    /// A packet failed to decode; libavcodec has dropped it. Goes on unless the error means
    /// decoding cannot continue (out of memory, a bug, a broken external library) or every
    /// packet for a while has failed.
    private func skipDamaged(_ code: Int32) throws(DecoderError) {
        consecutiveErrors += 1
        let fatal = [
            TONEARM_AVERROR_ENOMEM, TONEARM_AVERROR_EINVAL, TONEARM_AVERROR_BUG, TONEARM_AVERROR_BUG2,
            TONEARM_AVERROR_EXTERNAL,
        ].contains(code)
        if fatal || consecutiveErrors > Self.errorLimit {
            throw DecoderError(.decode, path: path, code: code)
        }
    }

    /// Updates ``bitrate`` from the packet's size and duration, or the codec's declared rate.
    /// Packets with skip samples (a file's first and last) are left out: their duration counts
    /// only the audible part, which would show as a spike.
    private func noteBitrate() {
        guard av_packet_get_side_data(packet, AV_PKT_DATA_SKIP_SAMPLES, nil) == nil else { return }
        let duration = Double(packet.pointee.duration) * av_q2d(timeBase)
        if duration > 0 {
            bitrate = Int((Double(packet.pointee.size) * 8 / duration / 1000).rounded())
        } else if input.codec.pointee.bit_rate > 0 {
            bitrate = Int(input.codec.pointee.bit_rate / 1000)
        }
    }

    /// Turns FFmpeg's 32-bit samples (24 significant bits at the top) into MPD's s24 layout:
    /// the value in the low 24 bits, sign-extended.
    private static func shiftToLowBytes(_ base: UnsafeMutableRawPointer, bytes: Int) {
        let samples = base.assumingMemoryBound(to: Int32.self)
        for index in 0..<(bytes / 4) {
            samples[index] >>= 8
        }
    }
}
