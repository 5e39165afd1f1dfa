import Foundation

/// What one update job has done so far, for its progress lines and the summary line it ends
/// with: without them a 100,000-song scan logs nothing for half a minute.
///
/// The scanner owns one and only increments it, on its own thread: reading tags in parallel,
/// it counts a batch's failures once the batch is back (`MusicFolderScanner.readMetadata`), so
/// counting takes no lock. ``progressLine(at:)`` reads the clock once per call, and the
/// scanner calls it once per folder walked and once per batch of tags read: no timer thread.
struct ScanProgress {
    /// How many unreadable files the summary names; the others are only counted.
    static let namedFailures = 3

    /// The id `update` answered with.
    let job: Int
    /// The part of the library updated; `""` is all of it.
    let uri: String
    /// The least time between two progress lines.
    let interval: Duration
    /// When the job started.
    let started: ContinuousClock.Instant
    /// When the last progress line was due, or the start.
    private var lastReport: ContinuousClock.Instant

    /// Folders found on disk.
    var folders = 0
    /// Song and playlist files found on disk.
    var files = 0
    /// Whether the walk is over, so that `files` is the whole count.
    var walked = false
    /// Files compared with the database or read.
    var checked = 0
    /// Songs new to the database.
    var added = 0
    /// Songs read again because they changed (or for `rescan`).
    var updated = 0
    /// Songs that left the database.
    var removed = 0
    /// Files that could not be read (unreadable, corrupt, not a song after all).
    private(set) var failed = 0
    /// The first ``namedFailures`` of them, with the reason.
    private(set) var failures: [(uri: String, reason: String)] = []

    /// A job that starts now.
    init(job: Int, uri: String, interval: Duration, started: ContinuousClock.Instant = .now) {
        self.job = job
        self.uri = uri
        self.interval = interval
        self.started = started
        lastReport = started
    }

    /// Counts a file that could not be read, naming it while fewer than ``namedFailures`` are.
    mutating func fail(_ uri: String, reason: String) {
        failed += 1
        if failures.count < Self.namedFailures { failures.append((uri, reason)) }
    }

    /// The progress line when ``interval`` has passed since the last one (or the start), else
    /// `nil`.
    mutating func progressLine(at now: ContinuousClock.Instant = .now) -> String? {
        guard now - lastReport >= interval else { return nil }
        lastReport = now
        return progress(elapsed: now - started)
    }

    /// What the job has done after `elapsed`: while walking, what it found so far; then how far
    /// it got through the files found.
    func progress(elapsed: Duration) -> String {
        let seconds = Self.seconds(elapsed)
        guard walked else {
            return
                "\(name): \(Self.counted(files, "file")) in \(Self.counted(folders, "folder")) found so far, "
                + "\(Self.decimal(seconds)) s"
        }
        return
            "\(name): \(Self.grouped(checked)) of \(Self.counted(files, "file")) checked in "
            + "\(Self.counted(folders, "folder")), \(counts(naming: false)), \(Self.decimal(seconds)) s "
            + "(\(Self.rate(checked, seconds)) files/s)"
    }

    /// The line a finished job logs, even one that changed nothing.
    func summary(elapsed: Duration) -> String {
        let seconds = Self.seconds(elapsed)
        return
            "\(name): \(Self.counted(files, "file")) in \(Self.counted(folders, "folder")), \(counts(naming: true)) "
            + "in \(Self.decimal(seconds)) s (\(Self.rate(files, seconds)) files/s)"
    }

    /// `update job 3`, with the part of the library when it is not all of it.
    private var name: String {
        uri.isEmpty ? "update job \(job)" : "update job \(job) (\"\(uri)\")"
    }

    /// The song counts and the unreadable files, the first few named when `naming` (in the
    /// summary: a progress line would repeat them every time).
    private func counts(naming: Bool) -> String {
        var text =
            "\(Self.grouped(added)) added, \(Self.grouped(updated)) updated, \(Self.grouped(removed)) removed, "
            + "\(Self.grouped(failed)) unreadable"
        if naming && !failures.isEmpty {
            let named = failures.map { "\($0.uri): \($0.reason)" }
            let more = failed > failures.count ? ", …" : ""
            text += " (" + named.joined(separator: ", ") + more + ")"
        }
        return text
    }

    /// `duration` in seconds.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// One decimal, as `31.2`.
    static func decimal(_ value: Double) -> String { String(format: "%.1f", value) }

    /// Files per second, whole and grouped; 0 before any time has passed.
    static func rate(_ count: Int, _ seconds: Double) -> String {
        seconds > 0 ? grouped(Int((Double(count) / seconds).rounded())) : "0"
    }

    /// `n` and `noun`, plural unless `n` is 1: `1 folder`, `4,210 folders`.
    static func counted(_ n: Int, _ noun: String) -> String {
        n == 1 ? "1 \(noun)" : "\(grouped(n)) \(noun)s"
    }

    /// `n` with commas between thousands, as `100,000`, whatever the locale: the log is read
    /// next to MPD's, which has no locale either.
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return n < 0 ? "-" + text : text
    }
}
