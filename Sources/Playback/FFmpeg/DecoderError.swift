import CFFmpeg

/// Why a file could not be opened, decoded or seeked.
///
/// The player shows ``message`` in `status` `error:` the way MPD does, so it is worded like
/// MPD's (`Failed to decode <path>`); ``reason`` keeps FFmpeg's own explanation for the log.
/// Thrown as a typed error so the decoder thread's hot path never boxes an `any Error`.
package struct DecoderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, so callers can tell a missing file from a broken one.
    package enum Kind: Sendable, Equatable {
        /// The file is missing or cannot be read.
        case unreadable
        /// The file was read but FFmpeg recognises no container in it.
        case open
        /// The container holds no audio stream FFmpeg can decode.
        case noAudio
        /// The container or codec failed while decoding.
        case decode
        /// Seeking failed.
        case seek
        /// A control (`stop`, `play`, a seek) ended the wait for a stream: nobody needs the
        /// song any more, so this is no failure to report.
        case interrupted
    }

    /// What went wrong.
    package var kind: Kind
    /// The file concerned, as it was given to the decoder.
    package var path: String
    /// FFmpeg's explanation (`av_strerror`) or Tonearm's, without the path.
    package var reason: String

    /// Creates an error.
    package init(_ kind: Kind, path: String, reason: String) {
        self.kind = kind
        self.path = path
        self.reason = reason
    }

    /// Creates an error from an FFmpeg return code.
    init(_ kind: Kind, path: String, code: Int32) {
        self.init(code == TONEARM_AVERROR_EXIT ? .interrupted : kind, path: path, reason: Self.text(of: code))
    }

    /// Whether `error` is a decoder's wait that a control ended (``Kind/interrupted``).
    package static func isInterruption(_ error: any Error) -> Bool {
        (error as? DecoderError)?.kind == .interrupted
    }

    /// MPD's wording for the player's `error:` line (checked against Debian's MPD 0.23), for
    /// the song at `path` (``message(uri:)`` with the path).
    package var message: String { message(uri: path) }

    /// MPD's wording for the player's `error:` line, naming the song by `uri` as MPD does
    /// (checked against Debian's MPD 0.23): a file that cannot be read gives MPD's nested
    /// message, the decoder's failure joined to the file input's with `; `, both with the
    /// file's path (MPD decodes a local file by its path); anything else is `Failed to decode
    /// <URI>` with the song's URI as the client knows it, as MPD's decoder thread reports a
    /// plugin's failure, without FFmpeg's reason (with it for a stream); a refused seek is
    /// MPD's `Decoder failed to seek`.
    package func message(uri: String) -> String {
        switch kind {
        case .unreadable:
            "Failed to decode \(path); Failed to open '\(path)': \(reason)"
        case .seek:
            // MPD's player reports a decoder's refused seek this way, without the file.
            "Decoder failed to seek"
        default:
            // A stream's reason is worth telling (a 404, a refused connection, a timeout), as
            // MPD tells its curl input's; a file's is FFmpeg's inner detail.
            path.hasPrefix("/") ? "Failed to decode \(uri)" : "Failed to decode \(uri); \(reason)"
        }
    }

    /// The message followed by FFmpeg's reason, for logs.
    package var description: String {
        message.hasSuffix(reason) ? message : "\(message): \(reason)"
    }

    /// FFmpeg's text for an error code (`av_err2str` is a macro Swift cannot import).
    static func text(of code: Int32) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(AV_ERROR_MAX_STRING_SIZE)) { buffer in
            av_strerror(code, buffer.baseAddress, buffer.count)
            return String(cString: buffer.baseAddress!)
        }
    }
}
