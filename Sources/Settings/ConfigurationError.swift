/// A configuration that cannot be used: a syntax error, a bad value, or a missing file.
///
/// Its description is what `tonearm` prints before exiting with status 1:
/// `FILE:LINE: message` when the place is known, as MPD names the place of a config error.
package struct ConfigurationError: Error, Equatable, CustomStringConvertible {
    /// The file the error is in, when there is one.
    package let file: String?
    /// The 1-based line of `file`, when the error belongs to a line.
    package let line: Int?
    /// What is wrong, in words a user can act on.
    package let message: String

    /// Creates an error at a place in a configuration file.
    package init(file: String?, line: Int?, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    /// Creates an error that belongs to the line `origin` came from.
    init(at origin: ConfigOrigin, _ message: String) {
        self.init(file: origin.file, line: origin.line, message: message)
    }

    package var description: String {
        switch (file, line) {
        case let (file?, line?): "\(file):\(line): \(message)"
        case let (file?, nil): "\(file): \(message)"
        default: message
        }
    }
}
