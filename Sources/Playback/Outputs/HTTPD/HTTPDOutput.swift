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
package final class HTTPDOutput: AudioOutputDevice {
    /// The configured name.
    package let name: String
    /// `httpd`.
    package var plugin: String { "httpd" }

    private let encoding: StreamEncoding
    private let forced: ForcedFormat?
    private let hub: HTTPStreamHub
    private let channel: any Channel
    private var encoder: StreamEncoder?
    private var clock: PacingClock?

    /// Creates the output and binds its port; ``OutputFactory`` makes these from
    /// `audio_output` blocks.
    init(
        name: String, host: String?, port: Int, encoding: StreamEncoding, maxClients: Int,
        forced: ForcedFormat?
    ) throws(OutputError) {
        self.name = name
        self.encoding = encoding
        self.forced = forced
        hub = HTTPStreamHub(maxClients: maxClients, contentType: encoding.contentType)
        channel = try HTTPStreamServer.bind(host: host, port: port, hub: hub)
    }

    deinit { channel.close(promise: nil) }

    /// The port the output listens on (useful when the configuration asked for port 0).
    package var port: Int? { channel.localAddress?.port }

    /// Opens an encoder for the format (negotiated as MPD's encoders do) and starts a stream.
    package func open(format: PCMFormat) throws(OutputError) -> PCMFormat {
        let actual = encoding.format(for: forced.apply(to: format))
        let encoder = try StreamEncoder(encoding, format: actual)
        self.encoder = encoder
        clock = PacingClock(format: actual)
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

    /// Waits until the last write has "played", so a song ends when its time is up.
    package func drain() { clock?.waitUntilPlayed() }

    /// Restarts the clock; what was encoded is already on its way to the listeners.
    package func cancel() { clock?.reset() }

    /// Stops the clock. Listeners stay connected and get nothing until playback resumes.
    package func pause() -> Bool {
        clock?.reset()
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
