import Glibc
import Synchronization

/// MPD's `pipe` output: `command` is run through `/bin/sh -c` on every open and the raw PCM is
/// written to its standard input; closing the output closes that pipe and waits for it.
///
/// A command that exits (or never reads) must not take the server with it: writing to a pipe
/// whose reader is gone raises `SIGPIPE`, which kills a process by default. MPD ignores
/// `SIGPIPE` for the whole process; Tonearm leaves the process' signals alone and blocks
/// `SIGPIPE` on the writing thread for the duration of each write, consuming the pending signal
/// after an `EPIPE`, so the failure arrives as an ``OutputError``
/// (`Write error on pipe: Broken pipe`) whatever the rest of the process does with signals.
/// The command itself starts with `SIGPIPE` at its default and no signals blocked.
package final class PipeOutput: AudioOutputDevice {
    /// The configured name.
    package let name: String
    /// `pipe`.
    package var plugin: String { "pipe" }
    /// The shell command (`command`).
    package let command: String
    /// A pipe has no mixer.
    package var hardwareMixer: (any HardwareMixer)? { nil }

    private let forced: ForcedFormat?
    private var fd: Int32 = -1
    private var child: pid_t = 0
    /// `{SIGPIPE}`, built once so that writing does not.
    private var sigpipe = sigset_t()

    /// Creates a pipe output; nothing runs until open.
    init(name: String, command: String, forced: ForcedFormat?) {
        self.name = name
        self.command = command
        self.forced = forced
        sigemptyset(&sigpipe)
        sigaddset(&sigpipe, SIGPIPE)
    }

    /// Creates a pipe output directly, for tests.
    package convenience init(name: String = "pipe", command: String) {
        self.init(name: name, command: command, forced: nil)
    }

    /// Ends the command if the owner did not close the output.
    deinit { close() }

    /// The running command's process id, while open.
    package var processID: Int32? { child > 0 ? child : nil }

    /// Starts the command (ending one left from an earlier open) and takes `format` as it is:
    /// the command must expect it, which the `format` option pins.
    package func open(format: PCMFormat) throws(OutputError) -> PCMFormat {
        close()
        let (pid, input) = try Self.spawn(command)
        child = pid
        fd = input
        return forced.apply(to: format)
    }

    /// Writes everything to the command's standard input, blocking while its pipe is full.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) -> Int {
        guard fd >= 0, let base = bytes.baseAddress else {
            if bytes.isEmpty { return 0 }
            throw OutputError("Write error on pipe: not open")
        }
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &sigpipe, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, base + done, bytes.count - done)
            if n >= 0 {
                done += n
                continue
            }
            let error = errno
            if error == EINTR { continue }
            if error == EPIPE, sigismember(&previous, SIGPIPE) == 0 {
                // Take the SIGPIPE this write raised off the thread before unblocking it.
                var none = timespec()
                _ = sigtimedwait(&sigpipe, nil, &none)
            }
            throw OutputError.system("Write error on pipe", errno: error)
        }
        return done
    }

    /// The command plays at its own pace; there is nothing to wait for here.
    package func drain() {}

    /// What the command has read cannot be taken back; MPD's pipe output drops nothing either.
    package func cancel() {}

    /// A pipe cannot pause: the caller stops writing (and may close, ending the command, as
    /// MPD does).
    package func pause() -> Bool { false }

    /// Closes the command's standard input and waits for it to exit, killing it if it does not
    /// within a few seconds so that a stuck command cannot hang the output thread.
    package func close() {
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
        guard child > 0 else { return }
        Self.reap(child)
        child = 0
    }

    /// Starts `/bin/sh -c command` with a new pipe as its standard input and returns the
    /// process and the pipe's write end.
    ///
    /// Swift's Glibc module has no `pipe2` (it needs `_GNU_SOURCE`), so the pipe is made with
    /// `pipe` and marked close-on-exec after; ``spawnLock`` keeps another pipe output's spawn
    /// out of that gap, where its command would inherit this pipe and hold it open.
    static func spawn(_ command: String) throws(OutputError) -> (pid_t, Int32) {
        try spawnLock.withLock { (_: inout ()) throws(OutputError) -> (pid_t, Int32) in try spawnLocked(command) }
    }

    /// Serialises the pipe outputs' spawns (see ``spawn(_:)``).
    private static let spawnLock = Mutex(())

    /// The descriptors above standard error that a spawned command would inherit (those
    /// without close-on-exec), from `/proc/self/fd`. SwiftNIO opens its listening and client
    /// sockets and its epoll descriptors that way; a command holding them would keep clients'
    /// connections open and a restarted server from binding its port. MPD's commands get only
    /// standard input, output and error. (`posix_spawn_file_actions_addclosefrom_np` would do
    /// this in one call, but Swift's Glibc module leaves it out: it needs `_GNU_SOURCE`.)
    private static func inheritableDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        let listing = dirfd(directory)
        var found: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard let descriptor = Int32(name), descriptor > STDERR_FILENO, descriptor != listing else { continue }
            let flags = fcntl(descriptor, F_GETFD)
            if flags >= 0 && flags & FD_CLOEXEC == 0 { found.append(descriptor) }
        }
        return found
    }

    private static func spawnLocked(_ command: String) throws(OutputError) -> (pid_t, Int32) {
        var ends: (Int32, Int32) = (-1, -1)
        let piped = withUnsafeMutableBytes(of: &ends) { pipe($0.baseAddress!.assumingMemoryBound(to: Int32.self)) }
        guard piped == 0 else {
            throw OutputError.system("Error opening pipe \"\(command)\"", errno: errno)
        }
        _ = fcntl(ends.0, F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends.1, F_SETFD, FD_CLOEXEC)
        if ends.0 == STDIN_FILENO {
            // dup2 onto itself would keep close-on-exec and leave the command without input.
            let moved = fcntl(ends.0, F_DUPFD_CLOEXEC, 3)
            Glibc.close(ends.0)
            ends.0 = moved
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends.0, STDIN_FILENO)
        for descriptor in inheritableDescriptors() where descriptor != ends.0 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let words: [String] = ["/bin/sh", "-c", command]
        let arguments = words.map { strdup($0) }
        defer { arguments.forEach { free($0) } }
        var argv = arguments + [nil]
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, environ)
        Glibc.close(ends.0)
        guard spawned == 0 else {
            Glibc.close(ends.1)
            throw OutputError.system("Error opening pipe \"\(command)\"", errno: spawned)
        }
        return (pid, ends.1)
    }

    /// Waits for `pid` to exit: up to five seconds, then `SIGTERM`, then `SIGKILL`.
    static func reap(_ pid: pid_t) {
        var status: Int32 = 0
        for signal in [0, SIGTERM, SIGKILL] {
            if signal != 0 { kill(pid, signal) }
            let deadline = PacingClock.now() + (signal == 0 ? 5_000_000_000 : 1_000_000_000)
            while true {
                let result = waitpid(pid, &status, WNOHANG)
                if result == pid || (result < 0 && errno != EINTR) { return }
                if PacingClock.now() >= deadline { break }
                PacingClock.sleep(until: PacingClock.now() + 5_000_000)
            }
        }
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
