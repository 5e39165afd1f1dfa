import MPDProtocol
import NIOCore
import NIOEmbedded
package import Server
package import Settings
import Synchronization

/// An MPD client without a socket, as HummingbirdTesting's client is for a Hummingbird
/// router: it sends lines through the same handlers and the same ``SessionLoop`` as a
/// connection (line framing, command lists, idle, permissions, long responses in pages) and
/// returns the bytes the server answered. A test of a command needs no process and no port.
///
/// Input runs on an `NIOAsyncTestingChannel` with the production channel handlers
/// (``SessionChannel``), so an idle wake-up reaches the session the way it does on a socket;
/// ``deliverIdleWakes()`` lets queued ones through. There is no greeting.
package final class TestClient {
    /// The server this client talks to.
    package let server: TestServer
    private let channel: NIOAsyncTestingChannel
    private var loop: SessionLoop
    private let received: ReceivedBytes
    /// Whether the server keeps the connection open; once it closed, nothing more is sent.
    package private(set) var isOpen = true

    /// Connects to `server`.
    /// - Parameters:
    ///   - permissions: what the client may do before any `password` (a listener's
    ///     `default_permissions` or `host_permissions`).
    ///   - isLocal: whether it came through a Unix socket (`config` needs that).
    package init(server: TestServer, permissions: Permissions = .all, isLocal: Bool = false) async throws {
        self.server = server
        let channel = NIOAsyncTestingChannel()
        let timeout = server.context.configuration.connectionTimeout
        let control = try await channel.testingEventLoop.submit {
            try SessionChannel.configure(channel, connectionTimeout: timeout)
        }.get()
        let received = ReceivedBytes()
        self.channel = channel
        self.received = received
        loop = SessionLoop(
            server: server.context, control: control,
            session: SessionState(permissions: permissions, isLocal: isLocal),
            logger: server.logger,
            output: ResponseStream { received.append($0) })
    }

    deinit {
        loop.finish()
    }

    /// The client's session state (permissions, partition, tag types, …).
    package var session: SessionState { loop.state }

    /// Sends each line with a newline, in order, and returns what the server wrote; lines after
    /// the server closed the connection are not sent.
    @discardableResult
    package func send(_ lines: String...) async throws -> TestResponse {
        try await send(raw: lines.map { $0 + "\n" }.joined())
    }

    /// Sends bytes as they are, newlines included (a line may be split, or left unfinished).
    @discardableResult
    package func send(raw text: String) async throws -> TestResponse {
        guard isOpen else { return TestResponse(bytes: [], isOpen: false) }
        do {
            try await channel.writeInbound(ByteBuffer(string: text))
        } catch is LineDecoder.LineTooLong {
            // As a connection: the lines before it are answered, then it closes unanswered.
            try await handleQueuedInput()
            isOpen = false
            return TestResponse(bytes: received.take(), isOpen: false)
        }
        try await handleQueuedInput()
        return TestResponse(bytes: received.take(), isOpen: isOpen)
    }

    /// Lets the idle wake-ups raised since the last call reach the session, as the event loop
    /// would, and returns what the server wrote (an idle answer, or nothing).
    @discardableResult
    package func deliverIdleWakes() async throws -> TestResponse {
        await channel.testingEventLoop.run()
        try await handleQueuedInput()
        return TestResponse(bytes: received.take(), isOpen: isOpen)
    }

    /// Handles the lines and wake-ups the channel has passed on, in order.
    private func handleQueuedInput() async throws {
        while isOpen, let batch = try await channel.readInbound(as: [SessionInput].self) {
            for input in batch where isOpen {
                isOpen = try await loop.handle(input) { received.append($0) }
            }
        }
    }
}

/// What the server wrote in answer to what a ``TestClient`` sent.
package struct TestResponse: Sendable, Equatable {
    /// The bytes, as a socket would carry them.
    package let bytes: [UInt8]
    /// Whether the connection is still open after them.
    package let isOpen: Bool

    /// The bytes as text.
    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The lines, without their newlines.
    package var lines: [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}

/// The bytes the session wrote, in order, from the session's writes and from a long
/// response's pages alike.
private final class ReceivedBytes: Sendable {
    private let bytes = Mutex<[UInt8]>([])

    /// Adds what the session wrote.
    func append(_ buffer: ByteBuffer) {
        bytes.withLock { $0.append(contentsOf: buffer.readableBytesView) }
    }

    /// Returns what was written since the last call.
    func take() -> [UInt8] {
        bytes.withLock { bytes in
            defer { bytes = [] }
            return bytes
        }
    }
}
