#if canImport(Glibc)
    import Glibc
#endif

/// syslog(3) for `log_file "syslog"`: messages go to the local syslog daemon (or the journal,
/// which listens on `/dev/log` under systemd) as `tonearm` under the `daemon` facility, as
/// MPD's go as `mpd`.
enum SystemLog {
    /// The identity syslog prefixes; openlog(3) keeps the pointer, so it must live forever.
    nonisolated(unsafe) private static let identity = strdup("tonearm")

    /// Connects to syslog (openlog(3)).
    static func open() {
        openlog(identity, 0, LOG_DAEMON)
    }

    /// Sends one message. syslog(3) is variadic, which Swift cannot call; vsyslog(3) with a
    /// `%s` format is the same call.
    static func send(_ message: String, priority: Int32) {
        message.withCString { text in
            withVaList([text]) { arguments in vsyslog(priority, "%s", arguments) }
        }
    }
}
