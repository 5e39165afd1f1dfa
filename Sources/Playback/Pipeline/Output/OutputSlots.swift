/// Which outputs play in a pipeline, and which keeps the time: `enableoutput`,
/// `disableoutput`, `moveoutput` and output failures come in as events and change it.
///
/// It lives in ``PipelineTransport`` and is only touched under the transport's lock; the output
/// threads read it to know whether to play, and it never waits, so it is unit-tested by calling
/// it. The devices are shared by every partition's pipeline: an output plays in the one that
/// holds it (``OutputSlot/attached``) and is a stand-in (MPD's "dummy") in the others.
struct OutputSlots {
    /// One output as the pipeline sees it.
    struct OutputSlot {
        /// `enableoutput`/`disableoutput`.
        var enabled: Bool
        /// Whether this pipeline holds the output (`moveoutput`).
        var attached: Bool
        /// Whether the output's thread holds a buffer reader, and so may hold the device open;
        /// a detach waits for it to let go before another pipeline may open the device.
        var holding = false
        /// A reader registered by ``OutputSlots/attach(_:enabled:buffer:)`` for the output's
        /// thread to take, so that an output attached before a `play` misses none of its chunks.
        var handedReader: Int?
        /// The generation in which the output failed; it retries with the next one.
        var failedIn: UInt64?
        /// The last failure, which `outputs` shows.
        var error: String?

        /// Whether the output plays now.
        var plays: Bool { enabled && attached && failedIn == nil }
    }

    /// The outputs, in configuration order.
    private(set) var slots: [OutputSlot]
    /// The first output that plays: what it has played is `elapsed`, and when it crosses into
    /// the next song the player hears `started`.
    private(set) var reference: Int?

    /// Creates the slots: `enabledAtStart` per output, all held by this pipeline or none.
    init(enabledAtStart: [Bool], attached: Bool) {
        slots = enabledAtStart.map { OutputSlot(enabled: attached && $0, attached: attached) }
        chooseReference()
    }

    /// The number of outputs.
    var count: Int { slots.count }

    /// Output `index`.
    subscript(index: Int) -> OutputSlot { slots[index] }

    /// Whether any output held by this pipeline is enabled.
    var anyEnabled: Bool { slots.contains { $0.enabled && $0.attached } }

    private mutating func chooseReference() {
        reference = slots.indices.first { slots[$0].plays }
    }

    // MARK: Events from the controls

    /// `enableoutput`/`disableoutput`. - Returns: whether it changed; `nil` for no such output.
    mutating func setEnabled(_ index: Int, _ on: Bool) -> Bool? {
        guard slots.indices.contains(index) else { return nil }
        guard slots[index].enabled != on else { return false }
        slots[index].enabled = on
        if on { slots[index].failedIn = nil }
        chooseReference()
        return true
    }

    /// Gives output `index` to this pipeline, enabled or not. An enabled one gets its reader
    /// now rather than when its thread wakes: what the decoder writes from here on reaches it,
    /// however late its thread runs.
    mutating func attach(_ index: Int, enabled on: Bool, buffer: PCMBuffer) {
        guard slots.indices.contains(index) else { return }
        slots[index].attached = true
        slots[index].enabled = on
        slots[index].failedIn = nil
        if on && !slots[index].holding {
            slots[index].handedReader = buffer.addReader()
            slots[index].holding = slots[index].handedReader != nil
        }
        chooseReference()
    }

    /// Takes output `index` out of this pipeline; its thread then lets go of the device, which
    /// ``OutputSlot/holding`` tells. - Returns: whether it was enabled; `nil` when this
    /// pipeline does not hold it.
    mutating func beginDetach(_ index: Int, buffer: PCMBuffer) -> Bool? {
        guard slots.indices.contains(index), slots[index].attached else { return nil }
        slots[index].attached = false
        if let handed = slots[index].handedReader {
            // Its thread never took the reader, so it never opened the device either.
            buffer.removeReader(handed)
            slots[index].handedReader = nil
            slots[index].holding = false
        }
        chooseReference()
        return slots[index].enabled
    }

    /// The output's thread let go in time: it stays listed as a stand-in, disabled.
    mutating func finishDetach(_ index: Int) {
        slots[index].enabled = false
        slots[index].error = nil
        slots[index].failedIn = nil
    }

    /// The output's thread did not let go in time: this pipeline keeps the output.
    mutating func cancelDetach(_ index: Int) {
        slots[index].attached = true
        chooseReference()
    }

    // MARK: Events from the output threads

    /// Output `index` failed in `generation` with `message`: it leaves the pipeline until the
    /// next `play`, and the next working one becomes the reference.
    mutating func failed(_ index: Int, message: String, generation: UInt64) {
        slots[index].failedIn = generation
        slots[index].error = message
        chooseReference()
    }

    /// Whether the waiting thread of output `index` may take a reader and play again: it is
    /// enabled and held, and did not fail, or failed in an earlier generation than `generation`.
    func mayResume(_ index: Int, generation: UInt64) -> Bool {
        let slot = slots[index]
        return slot.enabled && slot.attached && (slot.failedIn.map { $0 != generation } ?? true)
    }

    /// The thread of output `index` plays again: returns its reader, the one handed to it or a
    /// new one (`nil` when the buffer has no reader left).
    mutating func resume(_ index: Int, buffer: PCMBuffer) -> Int? {
        slots[index].failedIn = nil
        let reader = slots[index].handedReader ?? buffer.addReader()
        slots[index].handedReader = nil
        slots[index].holding = reader != nil
        chooseReference()
        return reader
    }

    /// The thread of output `index` gave back its reader and closed its device.
    mutating func released(_ index: Int) { slots[index].holding = false }

    /// The thread of output `index` registered `reader` at start.
    mutating func started(_ index: Int, reader: Int?) { slots[index].holding = reader != nil }
}
