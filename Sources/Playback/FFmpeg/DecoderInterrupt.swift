import CFFmpeg
import Synchronization

/// Counts the controls that make a decoder's work obsolete (`play`, `stop`, a seek, the
/// pipeline's end). Read without a lock by FFmpeg's interrupt callback, so that a control
/// aborts a stream that is still connecting or waiting for data at once, instead of waiting
/// behind a slow server.
final class InterruptEpoch: Sendable {
    private let value = Atomic<UInt64>(0)

    /// Makes every ``DecoderInterrupt`` made before now raised.
    func advance() { value.wrappingAdd(1, ordering: .releasing) }

    /// The count now.
    var current: UInt64 { value.load(ordering: .acquiring) }
}

/// What FFmpeg's interrupt callback asks for one opened input: whether to give up. Then every
/// blocking network call of that input returns `AVERROR_EXIT`.
///
/// It also keeps a watch on a stream: a call that waits longer than its watch allows gives up
/// too (``hasTimedOut``). FFmpeg's own timeout sits on the TCP connection of the URL it opened,
/// which an HLS station's segments and playlist reloads do not get; the watch covers every
/// connection the input makes.
final class DecoderInterrupt: Sendable {
    private let raised: @Sendable () -> Bool
    /// When the watched call must have returned (`ContinuousClock` nanoseconds since the
    /// interrupt was made), or 0 when nothing is watched.
    private let watchDeadline = Atomic<Int64>(0)
    /// The watch ran out while a call waited.
    private let timedOut = Atomic<Bool>(false)
    private let origin = ContinuousClock.now

    /// Raised by the next control after the count was `start`.
    init(_ epoch: InterruptEpoch, since start: UInt64) {
        raised = { epoch.current != start }
    }

    /// Raised at `deadline`.
    init(deadline: ContinuousClock.Instant) {
        raised = { ContinuousClock.now >= deadline }
    }

    /// Never raised (tests, tools).
    init() {
        raised = { false }
    }

    /// Whether to give up: a control came, or the watched call waited too long.
    var isRaised: Bool {
        if raised() { return true }
        let deadline = watchDeadline.load(ordering: .relaxed)
        guard deadline != 0, elapsed >= deadline else { return false }
        timedOut.store(true, ordering: .relaxed)
        return true
    }

    /// Whether a watched call gave up because it waited too long (rather than for a control).
    var hasTimedOut: Bool { timedOut.load(ordering: .relaxed) }

    /// Watches the calls from now on: one that is still waiting `seconds` from now gives up.
    func watch(_ seconds: Double) {
        watchDeadline.store(elapsed + Int64(seconds * 1e9), ordering: .relaxed)
    }

    /// Ends the watch.
    func unwatch() { watchDeadline.store(0, ordering: .relaxed) }

    private var elapsed: Int64 {
        let (seconds, attoseconds) = (ContinuousClock.now - origin).components
        return max(1, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// The callback for an FFmpeg context's `interrupt_callback`; the context must not
    /// outlive `self`.
    var callback: AVIOInterruptCB {
        AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<DecoderInterrupt>.fromOpaque(opaque).takeUnretainedValue().isRaised ? 1 : 0
            },
            opaque: Unmanaged.passUnretained(self).toOpaque())
    }
}
