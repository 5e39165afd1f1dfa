/// A line the pipeline writes to the server's log: a failure's full reason, or an output that
/// opened. Playback knows no logger; the assembly hands each entry to the server's.
package struct PipelineLogEntry: Sendable, Equatable {
    /// How much the line matters to an operator.
    package enum Severity: Sendable, Equatable {
        /// Something failed: a song that cannot be decoded, an output that cannot play.
        case error
        /// Something went wrong and was recovered: an output that ran dry (an underrun).
        case warning
        /// Worth seeing at the default level: an output opened for the first time.
        case notice
        /// Detail: an output opened again.
        case info
    }

    /// How much it matters.
    package let severity: Severity
    /// The line.
    package let text: String

    /// A failure's line.
    static func error(_ text: String) -> PipelineLogEntry { PipelineLogEntry(severity: .error, text: text) }
}
