import CFFmpeg
import Foundation
package import MusicModel

/// What only a stream needs of the decoder: its own tags, and a station's connection made
/// again when it drops.
extension AudioDecoder {
    /// A stream's tags (its name, the title on air, a remote file's own tags), once after they
    /// changed: right after opening, then at each new title. Always `nil` for a file.
    package func takeStreamTags() -> [TagValue]? { streamMetadata?.take() }

    /// Tries to connect again to a live stream that ended or broke off, for a dropped
    /// connection ends a station that is still on air. A live stream has no length, and either
    /// is a station (its server sent ICY headers) or broke off with an error: a remote file
    /// served without a length ends cleanly, and is not fetched again. A few tries, a second
    /// apart, each cut short by the interrupt; the count starts again only after
    /// ``steadyAudio`` seconds played, so a server that drops every connection at once is not
    /// called in a loop. Decoding goes on from the new connection's first packet, as long as
    /// it keeps the sample rate.
    /// - Returns: whether it is connected again.
    /// - Throws: the last try's error, so that `status` tells why the station went silent.
    func reconnectLiveStream(after status: Int32) throws(DecoderError) -> Bool {
        guard let metadata = streamMetadata, duration == nil, reconnects < Self.reconnectLimit,
            metadata.isStation || status != TONEARM_AVERROR_EOF
        else { return false }
        var failure = DecoderError(.decode, path: path, code: status)
        while reconnects < Self.reconnectLimit {
            reconnects += 1
            // A second before each try, in steps that let a control end the wait.
            for _ in 0..<10 where !interrupt.isRaised { Thread.sleep(forTimeInterval: 0.1) }
            if interrupt.isRaised { throw DecoderError(.interrupted, path: path, code: TONEARM_AVERROR_EXIT) }
            do throws(DecoderError) {
                let fresh = try DecoderInput.open(path: path, interrupt: interrupt, network: network)
                guard Int(fresh.codec.pointee.sample_rate) == sourceRate else {
                    fresh.close()
                    throw DecoderError(.decode, path: path, reason: "the stream changed its sample rate")
                }
                input.close()
                input = fresh
                reconnectedAt = cursor
                streamMetadata?.reconnected(fresh)
                draining = false
                return true
            } catch {
                failure = error
            }
        }
        throw failure
    }

    /// Tries at connecting again to a live stream that broke off.
    static let reconnectLimit = 3
    /// Seconds a live stream plays after connecting again before it may be connected again
    /// ``reconnectLimit`` more times.
    static let steadyAudio = 10.0
}
