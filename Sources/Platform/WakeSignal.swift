import Glibc

/// A self-pipe that one thread signals and another polls beside other descriptors: an audio
/// thread blocked in `poll(2)` on its device also wakes when the pipeline pauses, seeks or
/// stops, so it need not wake at intervals to look. (An `eventfd` would do with one
/// descriptor, but Swift's Glibc module does not import `sys/eventfd.h`.)
///
/// A signal stays pending until ``clear()``, so one given between a waiter's look at the
/// shared state and its `poll` is not lost. Signalling and clearing are a system call or two
/// and allocate nothing.
package final class WakeSignal: Sendable {
    /// The descriptor to poll for `POLLIN`; -1 when the kernel refused a pipe, and then
    /// nothing wakes a poll early (the caller's timeout still ends it).
    package let descriptor: Int32
    private let writer: Int32

    /// Creates a non-blocking, close-on-exec pipe.
    package init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        }
        descriptor = ends[0]
        writer = ends[1]
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if writer >= 0 { close(writer) }
    }

    /// Makes the descriptor readable until the next ``clear()``. A full pipe leaves it so.
    package func signal() {
        guard writer >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writer, &byte, 1)
    }

    /// Takes back every pending signal.
    package func clear() {
        guard descriptor >= 0 else { return }
        var bytes: UInt64 = 0
        while read(descriptor, &bytes, MemoryLayout<UInt64>.size) == MemoryLayout<UInt64>.size {}
    }
}
