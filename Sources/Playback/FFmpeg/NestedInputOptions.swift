import CFFmpeg

/// The certificate options of a stream's input, handed on to every input FFmpeg opens from
/// within the demuxer: an HLS playlist's segments and its reloads.
///
/// libavformat's HLS demuxer opens each segment through `AVFormatContext.io_open` with the
/// few options it copies from the playlist's connection (headers, proxy, user agent, cookies,
/// time-out), and `tls_verify` and `ca_file` are not among them: a segment over `https` was
/// fetched without checking its certificate, whatever the playlist's connection checked. The
/// context's `io_open` is replaced by one that adds them, then calls FFmpeg's own.
enum NestedInputOptions {
    /// FFmpeg's `io_open`, as a new context has it.
    private struct DefaultOpen: @unchecked Sendable {
        let function:
            @convention(c) (
                UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
                UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?
            ) -> Int32
    }

    private static let defaultOpen: DefaultOpen? = {
        var context: UnsafeMutablePointer<AVFormatContext>? = avformat_alloc_context()
        defer { avformat_free_context(context) }
        return context?.pointee.io_open.map(DefaultOpen.init)
    }()

    /// Makes `context` add `options` (``DecoderInput/certificateSettings(_:)`` as a dictionary)
    /// to each input it opens. `options` must outlive the context, and be freed (with
    /// `av_dict_free`) once the context is closed; it is kept as the context's `opaque`.
    /// Without FFmpeg's default to call, or without options, nothing is changed.
    static func install(_ options: OpaquePointer?, on context: UnsafeMutablePointer<AVFormatContext>?) {
        guard let options, let context, defaultOpen != nil else { return }
        context.pointee.opaque = UnsafeMutableRawPointer(options)
        context.pointee.io_open = { context, input, url, flags, options in
            if let options, let added = context?.pointee.opaque {
                av_dict_copy(options, OpaquePointer(added), 0)
            }
            // Installed only when the default is known.
            return NestedInputOptions.defaultOpen!.function(context, input, url, flags, options)
        }
    }
}
