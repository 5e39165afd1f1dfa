import Dispatch

/// Work that blocks its thread (it writes and `fsync`s files, or waits for an audio thread),
/// run one piece at a time on a Dispatch queue of its own, and awaited without blocking the
/// caller's thread.
///
/// Sessions run on their connection's event loop (docs/internals.md, Concurrency): a
/// handler that blocked there would hold up every other client of that loop. Awaiting
/// ``run(_:)`` suspends the session instead, and its task resumes on its loop when the work
/// is done, so the session's commands still run in order. The queue runs one piece at a time
/// in the order they came, so it also serialises what two sessions change together. It is a
/// Dispatch queue rather than Swift's global executor because the work blocks: that executor
/// has one thread per core, which a few `fsync`s would take from every other task.
package final class BlockingWorkQueue: Sendable {
    private let queue: DispatchQueue

    /// A queue whose thread is named `label` in Dispatch's reports.
    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `body` on the queue after the work queued before it, and returns what it returns
    /// (or throws what it throws) once it is done; the caller's thread is free meanwhile.
    package func run<Value: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result(catching: body)) }
        }
        return try result.get()
    }

    /// Holds back the work not started yet until ``resume()``: a test's way of keeping a
    /// change in progress while it checks that the event loop serves other sessions.
    package func suspend() { queue.suspend() }

    /// Lets held-back work run again (``suspend()``).
    package func resume() { queue.resume() }
}
