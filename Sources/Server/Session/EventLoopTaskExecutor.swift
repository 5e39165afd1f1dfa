import NIOCore

/// Runs a session's task on its connection's event loop.
///
/// A session's every step starts with bytes the event loop read and ends with bytes it must
/// write. Run on Swift's global executor, each command crossed threads twice (a futex wake of
/// a pool thread, then an eventfd wake of the loop); on the loop, a command that needs no
/// other executor is read, run and answered on one thread, as MPD serves its clients.
final class EventLoopTaskExecutor: TaskExecutor {
    private let eventLoop: any EventLoop

    /// An executor running its jobs on `eventLoop`.
    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

extension EventLoopTaskExecutor {
    /// Suspends the calling task until its event loop has had a chance to read its other
    /// sockets.
    ///
    /// `Task.yield()` is not enough on an event loop: the job it queues runs in the same tick,
    /// and the loop reads sockets only between ticks. Stepping off to the global executor and
    /// back ends the tick; the loop reads its sockets while the task is away.
    static func yieldToOtherSessions() async {
        await withTaskExecutorPreference(globalConcurrentExecutor) { await Task.yield() }
    }
}
