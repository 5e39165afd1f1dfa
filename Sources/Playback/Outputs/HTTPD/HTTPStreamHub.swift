import Synchronization

/// What one listener has been sent: the stream (its generation: one open of the output) and
/// the ring position it reads next. A new listener has no generation yet; it gets the
/// encoder's header and starts at the write position, which is always a packet boundary.
package struct ListenerCursor: Sendable, Equatable {
    /// The open of the output this listener's stream belongs to; nil before it got a header.
    package var generation: UInt64?
    /// The next ring position to send.
    package var position: UInt64 = 0
    /// For a listener that came while nothing played: the stream it waits for, which it gets
    /// from its first byte however late its first look after the open comes.
    package var waitingFor: UInt64?

    /// A listener that has received nothing yet.
    package init() {}
}

/// What ``HTTPStreamState/pull(_:maxCount:into:)`` tells a listener to do.
package enum PullResult: Equatable, Sendable {
    /// Nothing to send now: the output is not open yet, or the listener is up to date.
    case idle
    /// This many bytes were handed over; send them.
    case copied(Int)
    /// The stream the listener was receiving ended (the output closed or reopened in another
    /// format) and it has everything: close the connection, as MPD closes its clients.
    case ended
    /// The listener fell more than the ring's limit behind: drop it.
    case tooSlow
}

/// The state the output thread and the listeners share, behind ``HTTPStreamHub``'s lock. A
/// value type of its own so that its rules are unit-tested without threads or sockets.
package struct HTTPStreamState {
    /// The encoded bytes of the current stream.
    package var ring: EncodedRing
    /// Incremented by each open of the output.
    package private(set) var generation: UInt64 = 0
    /// Whether the output is open (a stream is being encoded).
    package private(set) var isOpen = false
    /// The current stream's header, which every listener gets first.
    package private(set) var header: [UInt8] = []
    /// The ring position where the current stream began.
    package private(set) var streamStart: UInt64 = 0
    /// The ring position after the current header, when it went out in the stream itself (a
    /// new Ogg stream for a new song): a new listener gets the header and starts no earlier.
    package private(set) var headerEnd: UInt64 = 0
    /// The ICY metadata block for listeners that asked for it, and how many blocks there were.
    package private(set) var metadata: (block: [UInt8], version: UInt64) = ([], 0)
    /// Connected listeners, for `max_clients` and to skip encoding when nobody listens.
    package var listeners = 0

    /// A state with a ring of `capacity` bytes and a per-listener limit of `limit` bytes.
    package init(capacity: Int, limit: Int) {
        ring = EncodedRing(capacity: capacity, limit: limit)
    }

    /// A new stream starts (the output opened) with `header`.
    package mutating func begin(header: [UInt8]) {
        generation &+= 1
        isOpen = true
        self.header = header
        streamStart = ring.written
        headerEnd = ring.written
    }

    /// A new logical stream begins within the stream (Ogg chaining): `header` goes out to
    /// every listener in the stream and is what a listener who joins from now on gets first.
    package mutating func replaceHeader(_ header: [UInt8]) {
        self.header = header
        header.withUnsafeBytes { ring.append($0) }
        headerEnd = ring.written
    }

    /// A new ICY metadata block (MPD's `icy_server_metadata_page`).
    package mutating func setMetadata(_ block: [UInt8]) {
        metadata = (block, metadata.version &+ 1)
    }

    /// The stream ends (the output closed): listeners get what is left, then are closed.
    package mutating func end() { isOpen = false }

    /// Hands the next bytes for the listener at `cursor` to `sink` (the header first for a new
    /// listener), at most about `maxCount` of them, and advances the cursor.
    package func pull(
        _ cursor: inout ListenerCursor, maxCount: Int, into sink: (UnsafeRawBufferPointer) -> Void
    ) -> PullResult {
        guard let current = cursor.generation else {
            guard isOpen else {
                cursor.waitingFor = generation &+ 1
                return .idle
            }
            // A listener that waited for this stream starts at its beginning (unless that is
            // already too far back); one that joins mid-stream at the latest packet boundary.
            let fromStart = cursor.waitingFor == generation && ring.written &- streamStart <= UInt64(ring.limit)
            cursor = ListenerCursor()
            cursor.generation = generation
            cursor.position = fromStart ? max(streamStart, headerEnd) : ring.written
            header.withUnsafeBytes { sink($0) }
            return .copied(header.count)
        }
        guard current == generation else { return .ended }
        switch ring.read(from: cursor.position, maxCount: maxCount, into: sink) {
        case .tooFarBehind:
            return .tooSlow
        case .copied(0):
            return isOpen ? .idle : .ended
        case .copied(let count):
            cursor.position &+= UInt64(count)
            return .copied(count)
        }
    }
}

/// The meeting point of an `httpd` output's thread, which publishes the encoded stream, and
/// its listeners on the event loops, which pull it at their own pace.
///
/// Each access holds the lock for a copy at most: the output thread never waits for a
/// listener, and a listener never waits for the encoder.
package final class HTTPStreamHub: @unchecked Sendable {
    // `state` is only touched with `lock` held (`Mutex<HTTPStreamState>` itself cannot hand
    // the ring to a caller's closure under strict concurrency).
    /// `max_clients`; 0 means no limit.
    package let maxClients: Int
    /// The encoder's `Content-Type`.
    package let contentType: String
    /// What a listener that asks for ICY metadata is told about the stream; nil when the
    /// encoder carries the tags itself, so that such a listener gets the plain stream (MPD).
    package let icy: ICYStationInfo?
    private let lock = Mutex(())
    private var state: HTTPStreamState

    /// A hub whose listeners may each fall `limit` bytes behind, in a ring of `capacity`.
    package init(
        maxClients: Int, contentType: String, icy: ICYStationInfo? = nil, capacity: Int = 1 << 20,
        limit: Int = 512 * 1024
    ) {
        self.maxClients = maxClients
        self.contentType = contentType
        self.icy = icy
        state = HTTPStreamState(capacity: capacity, limit: limit)
    }

    deinit { state.ring.deallocate() }

    /// Counts a new listener in, unless `max_clients` are already listening.
    func admit() -> Bool {
        lock.withLock { _ in
            guard maxClients == 0 || state.listeners < maxClients else { return false }
            state.listeners += 1
            return true
        }
    }

    /// Counts a listener out.
    func leave() { lock.withLock { _ in state.listeners -= 1 } }

    /// Whether anybody listens: without listeners the output does not encode, as MPD's.
    var hasListeners: Bool { lock.withLock { _ in state.listeners > 0 } }

    /// The output opened: a new stream with `header`.
    func begin(header: [UInt8]) { lock.withLock { _ in state.begin(header: header) } }

    /// The output thread publishes an encoded packet.
    func publish(_ bytes: UnsafeRawBufferPointer) { lock.withLock { _ in state.ring.append(bytes) } }

    /// The output closed.
    func end() { lock.withLock { _ in state.end() } }

    /// See ``HTTPStreamState/replaceHeader(_:)``.
    func replaceHeader(_ header: [UInt8]) { lock.withLock { _ in state.replaceHeader(header) } }

    /// See ``HTTPStreamState/setMetadata(_:)``.
    func setMetadata(_ block: [UInt8]) { lock.withLock { _ in state.setMetadata(block) } }

    /// The ICY metadata block, if there is one newer than `version`, and its version.
    func metadata(after version: UInt64) -> (block: [UInt8], version: UInt64)? {
        lock.withLock { _ in state.metadata.version != version ? state.metadata : nil }
    }

    /// See ``HTTPStreamState/pull(_:maxCount:into:)``.
    func pull(_ cursor: inout ListenerCursor, maxCount: Int, into sink: (UnsafeRawBufferPointer) -> Void)
        -> PullResult
    {
        lock.withLock { _ in state.pull(&cursor, maxCount: maxCount, into: sink) }
    }
}
