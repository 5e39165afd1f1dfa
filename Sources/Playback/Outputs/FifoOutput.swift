import Glibc

/// MPD's `fifo` output: raw PCM into a named pipe at real-time speed, which is how Snapcast's
/// `snapserver` takes audio (`source = pipe:///path/to/fifo`).
///
/// It behaves as MPD's `FifoOutputPlugin` does, so that a setup made for MPD works unchanged:
/// - `path` is created with `mkfifo` (mode 0666) if it does not exist; an existing file that
///   is not a FIFO is an error.
/// - The FIFO is opened for reading *and* writing, both non-blocking. Holding its own read end
///   means opening never waits for a reader and a write never fails with `EPIPE` when the
///   reader goes away; audio simply collects in the pipe.
/// - Writes are paced to real time (a ``PacingClock``, MPD's `Timer`), so a reader that keeps
///   up never sees the pipe fill. When it is full anyway (no reader, or a stalled one) the
///   output empties it through its own read end and starts the clock afresh, dropping that
///   audio instead of blocking the player.
/// - The descriptors stay open, and the FIFO in place, from the first open until the output is
///   released (``release()`` or deinit), as MPD keeps them for the output's whole life:
///   stopping playback must not give `snapserver` an end of file. Only a FIFO this output
///   created is removed then.
package final class FifoOutput: AudioOutputDevice {
    /// The configured name.
    package let name: String
    /// `fifo`.
    package var plugin: String { "fifo" }
    /// The FIFO's path (`path`).
    package let path: String
    /// A FIFO has no mixer.
    package var hardwareMixer: (any HardwareMixer)? { nil }

    private let forced: ForcedFormat?
    private var input: Int32 = -1
    private var output: Int32 = -1
    private var created = false
    private var clock: PacingClock?
    /// Where audio dropped from a full FIFO is read to; allocated with the descriptors so
    /// that writing never allocates.
    private var scratch: UnsafeMutableRawBufferPointer?

    /// Creates a FIFO output; nothing touches the file system until the first open.
    init(name: String, path: String, forced: ForcedFormat?) {
        self.name = name
        self.path = path
        self.forced = forced
    }

    /// Creates a FIFO output directly, for tests.
    package convenience init(name: String = "fifo", path: String) {
        self.init(name: name, path: path, forced: nil)
    }

    /// Releases the FIFO (see ``release()``) when the output goes away.
    deinit { release() }

    /// Whether this output made the FIFO (and so will remove it when released).
    package var createdFIFO: Bool { created }

    /// Creates and opens the FIFO on the first open, then starts a clock for `format`.
    package func open(format: PCMFormat) throws(OutputError) -> PCMFormat {
        if output < 0 { try openFIFO() }
        let actual = forced.apply(to: format)
        clock = PacingClock(format: actual)
        return actual
    }

    /// Paces, then writes everything non-blocking, emptying the FIFO when it is full.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) -> Int {
        guard output >= 0, clock != nil, let base = bytes.baseAddress else {
            if bytes.isEmpty { return 0 }
            throw OutputError("Failed to write to FIFO \(path): not open")
        }
        clock?.pace(adding: bytes.count)
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(output, base + done, bytes.count - done)
            if n > 0 {
                done += n
                continue
            }
            let error = errno
            switch error {
            case EAGAIN:
                // The pipe is full: empty it, as MPD does, rather than block the player.
                flush()
            case EINTR:
                continue
            default:
                throw OutputError.system("Failed to write to FIFO \(path)", errno: error)
            }
        }
        return done
    }

    /// Waits until the reader has had time to play what was written.
    package func drain() {
        clock?.waitUntilPlayed()
    }

    /// Restarts the clock and drops what the reader has not taken yet (MPD's `Cancel`).
    package func cancel() {
        flush()
    }

    /// Stops the clock; the FIFO itself has nothing to pause.
    package func pause() -> Bool {
        clock?.reset()
        return true
    }

    /// Ends this playback; the FIFO stays open for the next (see the type's notes).
    package func close() {
        clock = nil
    }

    /// Closes the FIFO and removes it if this output created it: the output is going away
    /// (disabled, or the server is shutting down).
    package func release() {
        if input >= 0 { Glibc.close(input) }
        if output >= 0 { Glibc.close(output) }
        input = -1
        output = -1
        clock = nil
        scratch?.deallocate()
        scratch = nil
        if created {
            var info = stat()
            if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFIFO { unlink(path) }
            created = false
        }
    }

    /// Reads everything waiting in the FIFO through its own read end and restarts the clock.
    private func flush() {
        clock?.reset()
        guard input >= 0, let scratch, let base = scratch.baseAddress else { return }
        while true {
            let n = read(input, base, scratch.count)
            if n > 0 { continue }
            if n < 0, errno == EINTR { continue }
            break
        }
    }

    /// Makes sure a FIFO is at `path` and opens both its ends (MPD's `OpenFifo`).
    private func openFIFO() throws(OutputError) {
        var info = stat()
        if stat(path, &info) != 0 {
            let error = errno
            guard error == ENOENT else {
                throw OutputError.system("Failed to stat FIFO \"\(path)\"", errno: error)
            }
            guard mkfifo(path, 0o666) == 0 else {
                throw OutputError.system("Couldn't create FIFO \"\(path)\"", errno: errno)
            }
            created = true
        } else if info.st_mode & S_IFMT != S_IFIFO {
            throw OutputError("\"\(path)\" already exists, but is not a FIFO")
        }
        input = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard input >= 0 else {
            let error = OutputError.system("Could not open FIFO \"\(path)\" for reading", errno: errno)
            release()
            throw error
        }
        output = Glibc.open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard output >= 0 else {
            let error = OutputError.system("Could not open FIFO \"\(path)\" for writing", errno: errno)
            release()
            throw error
        }
        scratch = .allocate(byteCount: 16384, alignment: 16)
    }
}
