import Logging

/// One log event, ready for a ``LogSink`` to lay out in its style.
struct LogRecord {
    /// The event's severity.
    let level: Logger.Level
    /// The logger's label (`tonearm`).
    let label: String
    /// The metadata as `key=value` pairs sorted by key, or nil without any.
    let metadata: String?
    /// The module that logged (`Server`, `MediaLibrary`).
    let source: String
    /// What happened.
    let message: String

    /// The line with the time, the level and the label, as swift-log's stream handler lays
    /// it out: `2026-11-26T12:58:30+0000 notice tonearm: [Server] Listening on [::]:6600`.
    func stampedLine(time: String) -> String {
        "\(time) \(level) \(label):\(metadata.map { " \($0)" } ?? "") [\(source)] \(message)\n"
    }

    /// The line without time, level or label, which the journal and syslog record themselves.
    var body: String {
        "\(metadata.map { "\($0) " } ?? "")[\(source)] \(message)"
    }

    /// The body with its priority before every line: the journal takes each line of its
    /// stream as an entry of its own, so a line without the prefix would lose its priority.
    func journalLines() -> String {
        body.split(separator: "\n", omittingEmptySubsequences: false)
            .map { "<\(priority)>\($0)\n" }
            .joined()
    }

    /// The syslog(3) priority, which is also the journal's: `error` is `LOG_ERR` (3), `notice`
    /// is `LOG_NOTICE` (5), and `verbose` lines (swift-log's `debug`) are `LOG_DEBUG` (7).
    var priority: Int32 {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}
