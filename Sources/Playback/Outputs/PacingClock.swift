import Glibc

/// Keeps an output that has no hardware clock (`null`, `fifo`) at real-time speed, as MPD's
/// output `Timer` does: every write adds its duration to a running total, and the next write
/// first sleeps until the audio written so far would have been heard.
///
/// The device is therefore at most one write ahead of the clock, which is what lets the null
/// output drive `elapsed` with no sound card and keeps Snapcast's FIFO from being flooded.
/// Unlike MPD's timer, which adds microseconds rounded down per write and so drifts, the due
/// time is computed from the byte total, so it never drifts. It reads `CLOCK_MONOTONIC` and
/// sleeps with `clock_nanosleep` on an absolute deadline: no allocation, no Swift runtime.
struct PacingClock {
    /// Bytes of audio per second in the opened format.
    let bytesPerSecond: UInt64
    /// When the clock started (monotonic nanoseconds), nil until the first write after
    /// open, cancel or pause.
    private(set) var start: UInt64?
    /// Bytes accounted since `start`.
    private(set) var bytes: UInt64 = 0

    /// A clock for `format`.
    init(format: PCMFormat) {
        bytesPerSecond = UInt64(max(format.bytesPerSecond, 1))
    }

    /// The duration of the bytes accounted since the clock started, in nanoseconds.
    var accountedNanoseconds: UInt64 {
        let seconds = bytes / bytesPerSecond
        let rest = bytes % bytesPerSecond
        return seconds * 1_000_000_000 + rest * 1_000_000_000 / bytesPerSecond
    }

    /// Sleeps until what was accounted so far has played, then accounts `count` more bytes:
    /// MPD's `Delay()` wait before `Play()` followed by `Timer::Add`.
    mutating func pace(adding count: Int) {
        if let start {
            Self.sleep(until: start &+ accountedNanoseconds)
        } else {
            start = Self.now()
            bytes = 0
        }
        bytes &+= UInt64(count)
    }

    /// Sleeps until everything accounted has played (the end of playback).
    func waitUntilPlayed() {
        if let start { Self.sleep(until: start &+ accountedNanoseconds) }
    }

    /// Forgets the running total (cancel, pause): the next write starts the clock afresh,
    /// instead of racing to catch up with the time that passed meanwhile.
    mutating func reset() {
        start = nil
        bytes = 0
    }

    /// How far the accounted audio runs ahead of now, in nanoseconds (MPD's `Delay()`).
    var delayNanoseconds: UInt64 {
        guard let start else { return 0 }
        let due = start &+ accountedNanoseconds
        let now = Self.now()
        return due > now ? due - now : 0
    }

    /// `CLOCK_MONOTONIC` in nanoseconds.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Sleeps until the monotonic clock reaches `deadline`, through signals.
    static func sleep(until deadline: UInt64) {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &time, nil) == EINTR {}
    }
}
