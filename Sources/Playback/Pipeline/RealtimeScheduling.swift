import Glibc

/// Real-time scheduling for the output threads, as MPD gives its own.
///
/// MPD's output threads ask for `SCHED_FIFO` at priority 40 with `SCHED_RESET_ON_FORK`
/// (`chrt -p` on a playing Debian MPD shows it; its systemd unit grants `LimitRTPRIO=40`).
/// A thread that only ever waits for the buffer and the device then runs the moment a chunk
/// or the device is ready, ahead of the decoder and of whatever else loads the machine: the
/// first chunk after `play` reaches the device without waiting for a CPU, and a busy machine
/// does not make the device underrun. `SCHED_RESET_ON_FORK` keeps it away from the commands a
/// `pipe` output spawns: they start with normal scheduling.
///
/// Without the privilege (root, `CAP_SYS_NICE` or an `RLIMIT_RTPRIO` of 40) the request fails
/// and the thread plays at normal priority, as MPD's does ("continuing anyway").
enum RealtimeScheduling {
    /// MPD's priority for its output threads, within the `LimitRTPRIO=40` its unit grants.
    static let outputPriority: Int32 = 40

    /// `SCHED_RESET_ON_FORK`, which Swift's Glibc module leaves out (it needs `_GNU_SOURCE`).
    private static let resetOnFork: Int32 = 0x4000_0000

    /// Puts the calling thread under `SCHED_FIFO` at `priority`, children reset to normal.
    /// - Returns: 0, or the `errno` of the refusal (`EPERM` without the privilege).
    @discardableResult
    static func makeCurrentThreadRealtime(priority: Int32 = outputPriority) -> Int32 {
        var parameters = sched_param()
        parameters.sched_priority = priority
        // On Linux, pid 0 is the calling thread, not the whole process.
        return sched_setscheduler(0, SCHED_FIFO | resetOnFork, &parameters) == 0 ? 0 : errno
    }
}
