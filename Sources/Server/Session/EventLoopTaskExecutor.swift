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
