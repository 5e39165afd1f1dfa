import Foundation
import Platform

/// What the decoder thread, the output threads and the controls share to hand chunks over:
/// the ``PCMBuffer``, the generation, whether the outputs pause, and the two state machines
/// that decide what the threads do (``DecoderScheduler``, ``OutputSlots``), under one small
/// lock whose condition the threads wait on.
///
/// No thread holds the lock across a device call, a decode, an allocation of its own or a
/// file: a thread takes it to decide its next step (event in, action out) and to record the
/// result, and performs the step outside it. A thread waits on the condition for whatever it
/// needs next (a chunk, room, a command, the end of a pause), which releases the lock.
///
/// Lock order: the transport's lock may be held while taking ``DecodingPipeline``'s
/// `nowPlaying` or `settings` mutex, never the other way round.
final class PipelineTransport: @unchecked Sendable {
    // Every stored property is immutable or only touched under `condition`'s lock, which the
    // compiler cannot see, hence @unchecked.
    private let condition = NSCondition()
    /// The chunks between the decoder and the outputs.
    let buffer: PCMBuffer
    /// Counts `play` and `stop` calls: a chunk or an event of an older generation is stale.
    var generation: UInt64 = 0
    /// The pipeline shuts down: every thread ends.
    var isShutDown = false
    /// Advanced with the generation (and at shutdown), without the lock: it ends the
    /// decoder's wait for a stream that is slow to connect or to send.
    let interrupts = InterruptEpoch()
    /// The outputs hold still (`pause`, a border pause, no output left).
    var paused = false
    /// Whether to pause when the next song takes over (single mode).
    var borderPause = false
    /// What the decoder does next.
    var decoder: DecoderScheduler
    /// Which outputs play.
    var outputs: OutputSlots
    /// The format the decoder expects its song of `generation` to give, set while it opens the
    /// file: a closed output opens in it meanwhile (``PCMFormat/init(expectedFrom:path:)``).
    var expectedFormat: (generation: UInt64, format: PCMFormat)?
    /// The output threads' signals, which end a wait for their device's room (registered by
    /// each thread as it is made, before any runs).
    private var roomWakes: [WakeSignal] = []

    /// Creates the transport over a buffer of `bufferBytes`.
    init(bufferBytes: Int, enabledAtStart: [Bool], attached: Bool) {
        buffer = PCMBuffer(totalBytes: bufferBytes)
        decoder = DecoderScheduler(bufferCapacity: buffer.capacity)
        outputs = OutputSlots(enabledAtStart: enabledAtStart, attached: attached)
    }

    /// Runs `body` with the lock held.
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }

    /// Waits for a ``broadcast()``. - Precondition: called inside ``withLock(_:)``.
    func wait() { condition.wait() }

    /// Waits for a ``broadcast()`` until `deadline`; false when the deadline passed.
    /// - Precondition: called inside ``withLock(_:)``.
    func wait(until deadline: Date) -> Bool { condition.wait(until: deadline) }

    /// Wakes every waiting thread to look again, also an output thread waiting for its
    /// device's room: a pause, a seek, a stop or an output leaving is heard at once.
    /// - Precondition: called inside ``withLock(_:)``.
    func broadcast() {
        condition.broadcast()
        for wake in roomWakes { wake.signal() }
    }

    /// Wakes the threads waiting on the condition for a chunk just committed. An output
    /// waiting for its device's room has one already, so the decoder's steady commits do not
    /// wake it. - Precondition: called inside ``withLock(_:)``.
    func announceChunk() { condition.broadcast() }

    /// Adds an output thread's signal to those ``broadcast()`` gives.
    /// - Precondition: called inside ``withLock(_:)``.
    func registerRoomWake(_ wake: WakeSignal) { roomWakes.append(wake) }

    /// Wakes the decoder when it waits for room and enough is free for its next batch; other
    /// chunk releases wake nobody, so a steady output costs no wake-ups but its own.
    /// - Precondition: called inside ``withLock(_:)``.
    func wakeDecoderIfRoom() {
        if decoder.wantsRoomWakeUp(buffer) { condition.broadcast() }
    }

    /// Pauses on the song because no output can play it, as MPD's player does, and tells the
    /// player why in `generation`. - Precondition: called inside ``withLock(_:)``.
    func pauseForOutputs(
        _ message: String, generation: UInt64, nowPlaying: Locked<NowPlaying>, events: PipelineEventDispatcher
    ) {
        paused = true
        nowPlaying.withLock { $0.pauseForOutputs(message) }
        events.post(.outputsFailed(message), generation: generation)
    }
}
