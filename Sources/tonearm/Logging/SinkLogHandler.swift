import Logging

/// The swift-log handler every logger of the server gets: it filters by `log_level` and hands
/// each event to the one ``LogSink`` that `log_file` chose.
struct SinkLogHandler: LogHandler {
    /// The logger's label.
    let label: String
    /// Where lines go.
    let sink: LogSink
    /// The lowest level written.
    var logLevel: Logger.Level
    /// Metadata every event of this logger carries (a session's `client`).
    var metadata: Logger.Metadata = [:]
    /// Metadata added at each event, if the bootstrap set a provider.
    var metadataProvider: Logger.MetadataProvider?

    /// One metadata value of this logger.
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Hands the event, with its metadata merged and sorted, to the sink.
    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let explicit = event.metadata { merged.merge(explicit) { $1 } }
        if let error = event.error { merged["error.message"] = "\(error)" }
        let pairs = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        sink.write(
            LogRecord(
                level: event.level, label: label, metadata: pairs.isEmpty ? nil : pairs.joined(separator: " "),
                source: event.source, message: "\(event.message)"))
    }
}
