import MPDProtocol
package import NIOCore

/// How a channel is set up to carry a session: the ``SessionInputHandler`` that turns the
/// client's bytes (in MPD's line framing, ``LineDecoder``) and idle wake-ups into one stream of
/// ``SessionInput``. Every accepted connection is set up this way (``ListenerBinder``), and so
/// is the tests' in-process client, so that both read their input through the same handler.
package enum SessionChannel {
    /// Adds the session's handlers to `channel`; call on its event loop.
    /// - Parameter connectionTimeout: `connection_timeout` in seconds; 0 for none.
    /// - Returns: the handle on the input handler, for the session.
    package static func configure(_ channel: any Channel, connectionTimeout: Int) throws -> SessionControl {
        let inputHandler = SessionInputHandler(
            timeout: connectionTimeout > 0 ? .seconds(Int64(connectionTimeout)) : nil)
        try channel.pipeline.syncOperations.addHandler(inputHandler)
        return SessionControl(handler: inputHandler, eventLoop: channel.eventLoop)
    }
}
