import Dispatch
import Foundation

/// Carries events from the decoder and output threads to the player without allocating on
/// those threads: a fixed ring of slots and a semaphore that a dispatcher thread waits on.
final class PipelineMailbox: @unchecked Sendable {
    /// What happened, by track token (the dispatcher turns tokens into tracks).
    enum Kind: Sendable {
        case started(token: Int)
        case borderPause
        case finished
        case failed(String)
        case outputsFailed(String)
        /// The reference output played a chunk that carries a stream's description.
        case streamReached(serial: UInt32)
        /// A line for the server's log (a failure's full reason, an output that opened), not an
        /// event for the player.
        case log(PipelineLogEntry)
        /// The pipeline shuts down: the dispatcher thread ends.
        case shutdown
    }

    private struct Slot {
        var generation: UInt64
        var kind: Kind
    }

    private let lock = NSLock()
    private let signal = DispatchSemaphore(value: 0)
    private var slots: [Slot]
    private var head = 0
    private var count = 0

    /// Creates a mailbox of `capacity` slots; when full, the oldest event is dropped (it
    /// belongs to a generation long superseded).
    init(capacity: Int = 64) {
        slots = Array(repeating: Slot(generation: 0, kind: .finished), count: capacity)
    }

    /// Posts an event; never blocks, never allocates (the slot array is preallocated).
    func post(_ kind: Kind, generation: UInt64) {
        lock.lock()
        if count == slots.count {
            head = (head + 1) % slots.count
            count -= 1
        }
        slots[(head + count) % slots.count] = Slot(generation: generation, kind: kind)
        count += 1
        lock.unlock()
        signal.signal()
    }

    /// Waits for the next event (dispatcher thread only).
    func take() -> (generation: UInt64, kind: Kind) {
        while true {
            signal.wait()
            lock.lock()
            if count > 0 {
                let slot = slots[head]
                // Released here, on the dispatcher, so that a poster never frees a message.
                slots[head] = Slot(generation: 0, kind: .finished)
                head = (head + 1) % slots.count
                count -= 1
                lock.unlock()
                return (slot.generation, slot.kind)
            }
            lock.unlock()
        }
    }
}
