import CFFmpeg
import Dispatch
import Foundation
import MusicModel
package import Settings

/// A small document read over the network with FFmpeg's HTTP input: a radio station's
/// playlist (`load http://…/station.pls`). Bounded in size and in time, so a server that
/// answers without end, or not at all, costs a failed command and nothing more.
package struct RemoteDocument: Sendable {
    /// The body.
    package var bytes: [UInt8]
    /// The `Content-Type` the server gave, without parameters, lowercased.
    package var mimeType: String?
    /// The body went on past the size limit: ``bytes`` holds its beginning.
    package var isTruncated = false

    /// Why a document could not be read.
    package enum Failure: Error, Sendable, Equatable {
        /// The server could not be reached or refused it; FFmpeg's reason.
        case unreachable(String)
        /// It did not arrive whole before the deadline.
        case timedOut
        /// Its `Content-Type` says it is not what the caller reads (a station's audio where a
        /// playlist was expected): nothing of the body was read.
        case refused
    }

    /// The most of a playlist that is read: 16,384 entries (MPD's default
    /// `max_playlist_length`) of 512 bytes each. What comes after is not read.
    package static let sizeLimit = 8 << 20
    /// How long reading one may take, connection included.
    package static let timeLimit: Duration = .seconds(15)

    /// The fetches under way at once, each on a thread of its own: enough for a few clients
    /// loading stations, without letting many `load`s of slow servers take Dispatch's threads.
    private static let fetchers: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "tonearm.remote-documents"
        queue.maxConcurrentOperationCount = 4
        return queue
    }()

    /// Reads `url` on a fetcher thread, leaving the caller's free.
    /// - Parameter accepts: asked with the `Content-Type` as soon as the server answered; the
    ///   body is read only when it says yes.
    package static func fetch(
        _ url: String, network: StreamInputSettings, sizeLimit: Int = sizeLimit, timeLimit: Duration = timeLimit,
        accepts: @escaping @Sendable (String?) -> Bool = { _ in true }
    ) async throws(Failure) -> RemoteDocument {
        let result: Result<RemoteDocument, Failure> = await withCheckedContinuation { continuation in
            fetchers.addOperation {
                continuation.resume(
                    returning: Result { () throws(Failure) in
                        try read(
                            url, network: network, sizeLimit: sizeLimit, deadline: .now + timeLimit, accepts: accepts)
                    })
            }
        }
        return try result.get()
    }

    /// Reads `url` on the calling thread, which it blocks until `deadline` at the latest.
    static func read(
        _ url: String, network: StreamInputSettings, sizeLimit: Int, deadline: ContinuousClock.Instant,
        accepts: (String?) -> Bool
    ) throws(Failure) -> RemoteDocument {
        let timer = DecoderInterrupt(deadline: deadline)
        // FFmpeg's context points at the timer until it is closed, below.
        defer { withExtendedLifetime(timer) {} }
        var callback = timer.callback
        var options = DecoderInput.streamOptions(network)
        var context: UnsafeMutablePointer<AVIOContext>?
        let opened = avio_open2(&context, RemoteStream.lowercasingScheme(url), AVIO_FLAG_READ, &callback, &options)
        av_dict_free(&options)
        guard opened >= 0, let context else {
            if timer.isRaised { throw .timedOut }
            throw .unreachable(DecoderError.text(of: opened))
        }
        defer {
            var closing: UnsafeMutablePointer<AVIOContext>? = context
            avio_closep(&closing)
        }
        let type = mimeType(of: context)
        guard accepts(type) else { throw .refused }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBufferPointer { avio_read(context, $0.baseAddress, Int32($0.count)) }
            if count == TONEARM_AVERROR_EOF { break }
            if count < 0 {
                if timer.isRaised { throw .timedOut }
                throw .unreachable(DecoderError.text(of: count))
            }
            if bytes.count + Int(count) > sizeLimit {
                bytes.append(contentsOf: chunk[0..<(sizeLimit - bytes.count)])
                return RemoteDocument(bytes: bytes, mimeType: type, isTruncated: true)
            }
            bytes.append(contentsOf: chunk[0..<Int(count)])
        }
        return RemoteDocument(bytes: bytes, mimeType: type)
    }

    /// The HTTP input's `mime_type`, without parameters (`audio/x-scpls; charset=…`).
    private static func mimeType(of context: UnsafeMutablePointer<AVIOContext>) -> String? {
        var value: UnsafeMutablePointer<UInt8>?
        guard av_opt_get(context, "mime_type", AV_OPT_SEARCH_CHILDREN, &value) >= 0, let value else { return nil }
        defer { av_free(value) }
        let text = String(cString: value)
        let type = text.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return type?.isEmpty == false ? type : nil
    }
}
