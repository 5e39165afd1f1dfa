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
final class DecoderInterrupt: Sendable {
    private let raised: @Sendable () -> Bool

    /// Raised by the next control after now.
    init(_ epoch: InterruptEpoch) {
        let start = epoch.current
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

    /// Whether to give up.
    var isRaised: Bool { raised() }

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
