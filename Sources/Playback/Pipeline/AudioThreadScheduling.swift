import Glibc

/// How the audio threads are scheduled: the outputs ahead of everything, the decoder a little
/// behind the rest.
///
/// Real-time outputs, as MPD has them: MPD's output threads ask for `SCHED_FIFO` at priority
/// 40 with `SCHED_RESET_ON_FORK` (`chrt -p` on a playing Debian MPD shows it; its systemd unit
/// grants `LimitRTPRIO=40`). A thread that only ever waits for the buffer and the device then
/// runs the moment a chunk or the device is ready, ahead of the decoder and of whatever else
/// loads the machine: the first chunk after `play` reaches the device without waiting for a
/// CPU, and a busy machine does not make the device underrun. `SCHED_RESET_ON_FORK` keeps it
/// away from the commands a `pipe` output spawns: they start with normal scheduling. Without
/// the privilege (root, `CAP_SYS_NICE` or an `RLIMIT_RTPRIO` of 40) the request fails and the
/// thread plays at normal priority, as MPD's does ("continuing anyway").
///
/// A niced decoder (Tonearm's own choice; MPD's runs at nice 0): it works seconds ahead of what
/// is heard, and right after `play` it decodes in one burst until the buffer is full (a 5 s
/// FLAC in about 4 ms). A `pipe` output's command starts on the output thread's CPU; when the
/// decoder shared that CPU, the new shell waited for the burst and the first byte came 3 ms
/// later (measured by pinning both threads to one CPU: 6 ms against 3). Five steps nicer, the
/// decoder yields to it, and it still gets a quarter of a CPU against a busy normal process, far more
/// than decoding takes.
enum AudioThreadScheduling {
    /// MPD's priority for its output threads, within the `LimitRTPRIO=40` its unit grants.
    static let outputPriority: Int32 = 40

    /// `SCHED_RESET_ON_FORK`, which Swift's Glibc module leaves out (it needs `_GNU_SOURCE`).
    private static let resetOnFork: Int32 = 0x4000_0000

    /// How many steps of niceness the decoder runs below the thread that started it (see above).
    static let decoderNiceness: Int32 = 5

    /// Lowers the calling thread's priority by `steps` of niceness, to 19 at most (on Linux,
    /// `PRIO_PROCESS` with 0 names the calling thread, whose niceness is its creator's).
    /// Always permitted: it only lowers.
    static func makeCurrentThreadNicer(by steps: Int32 = decoderNiceness) {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let current = getpriority(which, 0)  // -20…19; -1 is a valid answer too
        _ = setpriority(which, 0, min(19, current + steps))
    }

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
