import Foundation
import Glibc

/// Threads with names the kernel shows (`top -H`, `/proc/PID/task/TID/comm`).
///
/// Foundation's `Thread.name` on Linux reaches the kernel only when set on the running thread,
/// and even then not always (it checks the thread's identity, which the starting thread may
/// not have stored yet); Swift's Glibc module has no `pthread_setname_np` (it needs
/// `_GNU_SOURCE`). The new thread names itself through `/proc/thread-self/comm` instead.
package enum NamedThread {
    /// Starts `body` on a new thread named `name`, of which the kernel keeps 15 bytes.
    package static func start(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread {
            let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            if comm >= 0 {
                // Longer names are refused whole.
                _ = name.utf8CString.withUnsafeBufferPointer {
                    Glibc.write(comm, $0.baseAddress, min(15, $0.count - 1))
                }
                close(comm)
            }
            body()
        }
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }
}
