import Logging
import ServiceLifecycle
import UnixSignals

/// Reopens the log file on SIGHUP, as MPD does, so that logrotate can move the file away and
/// signal the server (`postrotate … kill -HUP`). SIGHUP is caught with or without a log file:
/// as with MPD, it never stops the server.
struct LogReopenService: Service, CustomStringConvertible {
    /// The sink whose file is reopened.
    let sink: LogSink
    /// Where a failed reopen is reported: the old file, still in use.
    let logger: Logger

    /// The name ServiceLifecycle logs.
    var description: String { "LogReopenService" }

    /// Reopens the file at each SIGHUP until graceful shutdown.
    func run() async {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        for await _ in hangups.cancelOnGracefulShutdown() {
            guard let path = sink.path else { continue }
            if sink.reopen() {
                logger.info("reopened the log file \(path)")
            } else {
                logger.error("error re-opening log file: \(path)")
            }
        }
    }
}
