import Synchronization

/// A value behind a mutex of its own, shared by reference between the pipeline's threads and
/// the controls (``NowPlaying``, ``PipelineSettings``). Each access is a few assignments:
/// nobody waits under it.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    /// Wraps `value`.
    init(_ value: Value) { mutex = Mutex(value) }

    /// Runs `body` on the value with the mutex held.
    func withLock<Result: Sendable>(_ body: (inout sending Value) -> sending Result) -> Result {
        mutex.withLock(body)
    }

    /// A copy of the value.
    var value: Value { mutex.withLock { $0 } }
}
