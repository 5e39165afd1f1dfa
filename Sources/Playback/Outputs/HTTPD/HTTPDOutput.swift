package import MusicModel
import NIOCore

/// MPD's `httpd` output: encodes what plays and streams it over HTTP to any number of
/// listeners (a phone's MPD client, a browser, `ffplay`), with MPD's option names.
///
/// There is no device clock, so the output is paced in real time by a ``PacingClock`` as the
/// `null` output is, and MPD's is by its timer. The output thread encodes (``StreamEncoder``,
/// only while somebody listens, as MPD does) and copies each packet into the
/// ``HTTPStreamHub``; the listeners are served from there on the server's event loops
/// (``HTTPStreamServer``), each at its own pace. The port is bound when the configuration is
/// read, so a port in use is reported at start-up, and a listener may connect before
/// anything plays: it waits for the stream and gets its header first.
///
/// Each song's tags reach it through ``sendTag(_:)``: Vorbis (and Opus with `opustags`) start
/// a new Ogg stream with them, the other encoders give them to listeners as ICY metadata.
/// While paused it keeps streaming silence, so that listeners stay connected, as MPD's does.
package final class HTTPDOutput: AudioOutputDevice {
    /// The configured name.
    package let name: String
    /// `httpd`.
    package var plugin: String { "httpd" }
    /// Whether songs' tags are wanted: the `tags` option (default yes).
    package let takesTags: Bool

    private let encoding: StreamEncoding
    private let forced: ForcedFormat?
    private let hub: HTTPStreamHub
    private let channel: any Channel
    private var encoder: StreamEncoder?
    private var clock: PacingClock?
    /// A twentieth of a second of silence in the opened format, written on each ``pause()``.
    private var silence: UnsafeMutableRawBufferPointer?
    /// The tags of the song playing, for an Ogg stream that starts before its first write.
    private var tags: [TagValue] = []

    /// Creates the output and binds its port; ``OutputFactory`` makes these from
    /// `audio_output` blocks.
    init(
        name: String, host: String?, port: Int, encoding: StreamEncoding, maxClients: Int,
        station: ICYStationInfo, takesTags: Bool, forced: ForcedFormat?
    ) throws(OutputError) {
        self.name = name
        self.encoding = encoding
        self.forced = forced
        self.takesTags = takesTags
        hub = HTTPStreamHub(
            maxClients: maxClients, contentType: encoding.contentType, icy: encoding.carriesTags ? nil : station)
        channel = try HTTPStreamServer.bind(host: host, port: port, hub: hub)
    }

    deinit {
        channel.close(promise: nil)
        silence?.deallocate()
    }

    /// The port the output listens on (useful when the configuration asked for port 0).
    package var port: Int? { channel.localAddress?.port }

    /// Opens an encoder for the format (negotiated as MPD's encoders do) and starts a stream.
    package func open(format: PCMFormat) throws(OutputError) -> PCMFormat {
        let actual = encoding.format(for: forced.apply(to: format))
        // Only an encoder that carries tags writes them into its header; Opus without
        // `opustags` starts with empty comments, as MPD's, and its titles go out as ICY.
        let encoder = try StreamEncoder(encoding, format: actual, tags: encoding.carriesTags ? tags : [])
        self.encoder = encoder
        clock = PacingClock(format: actual)
        silence?.deallocate()
        let bytes = max(actual.bytesPerSecond / 20 / actual.frameSize, 1) * actual.frameSize
        silence = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 16)
        silence?.initializeMemory(as: UInt8.self, repeating: 0)
        hub.begin(header: encoder.header)
        return actual
    }

    /// Waits for the previous write to have "played", then encodes `bytes` for the listeners.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) -> Int {
        guard let encoder else { throw OutputError("The httpd output \"\(name)\" is not open") }
        let count = bytes.count - bytes.count % encoder.format.frameSize
        clock?.pace(adding: count)
        if hub.hasListeners {
            let hub = hub
            try encoder.encode(UnsafeRawBufferPointer(rebasing: bytes[0..<count])) { hub.publish($0) }
        }
        return count
    }

    /// A new song (or a station's new title): a new Ogg stream with its tags, or the ICY
    /// metadata block listeners get at their next interval. Called on the output thread; it
    /// allocates, once per song, as MPD's does.
    package func sendTag(_ tags: [TagValue]) {
        self.tags = tags
        if encoding.carriesTags {
            guard let encoder else { return }
            let hub = hub
            do {
                try encoder.chain(tags: tags) { hub.publish($0) }
                hub.replaceHeader(encoder.header)
            } catch {
                // ``StreamEncoder/chain(tags:emit:)`` failed before it touched the old stream,
                // which goes on untitled, as MPD ignores an encoder's failed tag.
            }
        } else if let block = ICYMetadata.block(for: tags) {
            hub.setMetadata(block)
        }
    }

    /// Waits until the last write has "played", so a song ends when its time is up.
    package func drain() { clock?.waitUntilPlayed() }

    /// Restarts the clock; what was encoded is already on its way to the listeners.
    package func cancel() { clock?.reset() }

    /// While paused: the next piece of silence is due when the last one has "played"; with
    /// nobody listening, nothing is sent and the output looks again in a second, as MPD's does.
    package func nextPauseCall() -> Double? {
        guard encoder != nil else { return nil }
        guard hub.hasListeners else {
            clock?.reset()
            return 1
        }
        return Double(clock?.delayNanoseconds ?? 0) / 1e9
    }

    /// Called whenever ``nextPauseCall()`` says while paused: a twentieth of a second of
    /// silence goes to the listeners, so that their players keep the connection (MPD's output
    /// plays silence on each pause call while it has clients). It is due, so the clock does
    /// not wait.
    package func pause() -> Bool {
        guard let silence, let encoder, hub.hasListeners else { return true }
        clock?.pace(adding: silence.count)
        let hub = hub
        try? encoder.encode(UnsafeRawBufferPointer(silence)) { hub.publish($0) }
        return true
    }

    /// Ends the stream: the encoder's last packets go out, then listeners are closed.
    package func close() {
        if let encoder {
            let hub = hub
            try? encoder.finish { hub.publish($0) }
        }
        encoder = nil
        clock = nil
        hub.end()
    }
}
