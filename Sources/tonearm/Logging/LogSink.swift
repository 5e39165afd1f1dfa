import Logging
import Platform
import Settings
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Where the server's log lines end up, as MPD's `log_file` chooses: standard error (the
/// terminal, or the journal under systemd), an appended file, or syslog. One sink serves every
/// logger; a lock keeps lines from different threads whole.
final class LogSink: Sendable {
    /// How lines are written.
    enum Style: Equatable {
        /// `TIME LEVEL LABEL: [SOURCE] MESSAGE`, the swift-log layout Tonearm has always written,
        /// to a terminal or a file.
        case stamped
        /// Without time and level, each line starting with its sd-daemon(3) priority (`<4>`),
        /// which the journal reads and strips: `journalctl -p warning` then filters them.
        case journal
        /// One syslog(3) message per line, with its priority, under the `daemon` facility.
        case syslog
    }

    /// How this sink writes.
    let style: Style
    /// The file for `log_file PATH`, which ``reopen()`` opens again.
    let path: String?
    /// The descriptor written to; replaced when the file is reopened.
    private let descriptor: Mutex<Int32>

    /// The sink for `destination`.
    /// - Parameter environment: `JOURNAL_STREAM` tells whether standard error is the journal.
    /// - Throws: ``LogFileError`` when the log file cannot be opened; MPD refuses to start then.
    init(destination: LogDestination, environment: [String: String]) throws(LogFileError) {
        switch destination {
        case .standardError:
            style = Self.standardErrorIsJournal(environment["JOURNAL_STREAM"]) ? .journal : .stamped
            path = nil
            descriptor = Mutex(STDERR_FILENO)
        case .file(let path, let origin):
            let opened = Self.open(path)
            guard opened >= 0 else { throw LogFileError(path: path, origin: origin, errno: errno) }
            style = .stamped
            self.path = path
            descriptor = Mutex(opened)
        case .syslog:
            style = .syslog
            path = nil
            descriptor = Mutex(-1)
            SystemLog.open()
        }
    }

    /// Writes one record in this sink's style.
    func write(_ record: LogRecord) {
        switch style {
        case .stamped:
            append(record.stampedLine(time: Self.localTimestamp()))
        case .journal:
            append(record.journalLines())
        case .syslog:
            SystemLog.send(record.body, priority: record.priority)
        }
    }

    /// Opens the log file again after logrotate moved it (MPD does this on SIGHUP). Lines keep
    /// going to the old file until the new one is open; nothing is lost in between.
    /// - Returns: false when the file cannot be opened; the old one stays in use.
    func reopen() -> Bool {
        guard let path else { return true }
        let opened = Self.open(path)
        guard opened >= 0 else { return false }
        let previous = descriptor.withLock { current in
            defer { current = opened }
            return current
        }
        close(previous)
        return true
    }

    private func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            // A full disk or a closed terminal drops the line, as MPD drops it.
            descriptor.withLock { fd in _ = writeAll(UnsafeRawBufferPointer(bytes), to: fd) }
        }
    }

    /// Opens `path` for appending, creating it as MPD does (mode 0666 less the umask).
    private static func open(_ path: String) -> Int32 {
        Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o666)
    }

    /// Whether standard error is the journal's stream: systemd sets `JOURNAL_STREAM` to the
    /// stream's `device:inode`, and a child whose standard error was redirected keeps the
    /// variable, so the two are compared (systemd.exec(5)).
    static func standardErrorIsJournal(_ value: String?) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    /// The local time as swift-log's stream handler writes it (`2026-11-26T12:58:30+0000`).
    private static func localTimestamp() -> String {
        var now = time(nil)
        var local = tm()
        guard localtime_r(&now, &local) != nil else { return "<unknown>" }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            let count = strftime(buffer.baseAddress!, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), as: UTF8.self)
        }
    }
}

/// A log file that cannot be opened at start. Described as MPD describes it, at the line that
/// names the file.
struct LogFileError: Error, CustomStringConvertible {
    /// The file named by `log_file`.
    let path: String
    /// The `log_file` line.
    let origin: ConfigOrigin
    /// Why `open` failed.
    let errno: Int32

    /// `FILE:LINE: failed to open log file "PATH": REASON`.
    var description: String {
        "\(origin): failed to open log file \"\(path)\": \(String(cString: strerror(errno)))"
    }
}
