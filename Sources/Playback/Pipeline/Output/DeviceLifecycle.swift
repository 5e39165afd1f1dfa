/// The life of one output device as its thread drives it: closed, open in a format, paused,
/// and back. The thread says what happens (a chunk to play, a pause, a flush, the end of the
/// stream, a release) and gets the device calls to make, in MPD's order for an output plugin;
/// it makes them and reports the result. Owned by the output thread, so it needs no lock, and
/// it is unit-tested without a device.
struct DeviceLifecycle: Equatable {
    /// Where the device is.
    enum State: Equatable {
        /// Not open (never opened, closed after `stop` or a release, or it failed to open).
        case closed
        /// Open for chunks of `requested`; the device took `actual`.
        case open(requested: PCMFormat, actual: PCMFormat)
        /// Open, and the pause was handed to the device (whether or not it could pause itself:
        /// one that cannot simply gets no writes until the pause ends).
        case paused(requested: PCMFormat, actual: PCMFormat)
    }

    /// A device call to make.
    enum Action: Equatable {
        /// Nothing.
        case none
        /// `open(format:)` (after `close()` when `reopen`).
        case open(PCMFormat, reopen: Bool)
        /// `pause()`.
        case pause
        /// `cancel()`, then `close()` when `close`.
        case cancel(close: Bool)
        /// `cancel()`, then `pause()`: `stop` for a device kept open (`always_on`), which MPD
        /// pauses rather than closes.
        case cancelAndPause
        /// `drain()`.
        case drain
        /// `close()`.
        case close
    }

    /// Where the device is now.
    private(set) var state = State.closed
    /// `always_on`: `stop` pauses the device instead of closing it.
    var keepsOpen = false

    /// Whether the device is open and paused (after a pause, or a `stop` with ``keepsOpen``).
    var isPaused: Bool {
        if case .paused = state { return true }
        return false
    }

    /// The format the open device took; `nil` while it is closed.
    var actualFormat: PCMFormat? {
        switch state {
        case .closed: nil
        case .open(_, let actual), .paused(_, let actual): actual
        }
    }

    /// A chunk in `format` is to be played: the device must be open in it. Writing ends a pause.
    mutating func play(_ format: PCMFormat) -> Action {
        switch state {
        case .closed:
            return .open(format, reopen: false)
        case .open(let requested, let actual), .paused(let requested, let actual):
            guard requested == format else { return .open(format, reopen: true) }
            state = .open(requested: requested, actual: actual)
            return .none
        }
    }

    /// The device opened for `requested` and took `actual`.
    mutating func opened(_ requested: PCMFormat, actual: PCMFormat) {
        state = .open(requested: requested, actual: actual)
    }

    /// The device failed to open: it is closed.
    mutating func openFailed() { state = .closed }

    /// The pipeline pauses: the device is asked once per pause.
    mutating func pause() -> Action {
        guard case .open(let requested, let actual) = state else { return .none }
        state = .paused(requested: requested, actual: actual)
        return .pause
    }

    /// Stop, seek or a new song: what the device holds is dropped; on stop it is closed, or
    /// left paused when it ``keepsOpen`` (MPD's `always_on`).
    mutating func flush(stopped: Bool) -> Action {
        switch state {
        case .closed:
            return .none
        case .open(let requested, let actual), .paused(let requested, let actual):
            if stopped && keepsOpen {
                state = .paused(requested: requested, actual: actual)
                return .cancelAndPause
            }
            state = stopped ? .closed : .open(requested: requested, actual: actual)
            return .cancel(close: stopped)
        }
    }

    /// The stream ended: the device plays out what it holds.
    func end() -> Action { actualFormat == nil ? .none : .drain }

    /// The output leaves the pipeline (disabled, failed, moved, shut down): the device closes.
    mutating func release() -> Action {
        guard actualFormat != nil else { return .none }
        state = .closed
        return .close
    }
}
