/// Where log lines go (`log_file`).
package enum LogDestination: Sendable, Equatable {
    /// Standard error, MPD's choice without `log_file`: the terminal, or the journal when
    /// systemd runs the server.
    case standardError
    /// Appended to a file, which SIGHUP reopens so that logrotate can move it away.
    /// `origin` is the `log_file` line, named when the file cannot be opened.
    case file(path: String, origin: ConfigOrigin)
    /// The local syslog daemon (`log_file "syslog"`).
    case syslog
}

/// The minimum severity that reaches the log (`log_level`).
package enum LogLevel: String, Sendable, Equatable, CaseIterable {
    case error, warning, notice, info, verbose

    /// Parses MPD's level names, including the pre-0.22 `default` (notice) and `secure` (info).
    package init?(configValue: String) {
        switch configValue {
        case "default": self = .notice
        case "secure": self = .info
        default: self.init(rawValue: configValue)
        }
    }
}
