import Glibc

/// Why an output could not be configured, opened or written to.
///
/// The message is worded as MPD words it (for example `Failed to open ALSA device "hw:9": No
/// such file or directory`), because it is what users see in the log and in `outputs`, and
/// what they search for.
package struct OutputError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The whole message.
    package var message: String
    /// The `errno` value (or the negated ALSA error code) behind the failure, when there is
    /// one, so that callers can tell a busy device (`EBUSY`) from a missing one.
    package var code: Int32?

    /// Creates an error with a message.
    package init(_ message: String, code: Int32? = nil) {
        self.message = message
        self.code = code
    }

    /// The message.
    package var description: String { message }

    /// `"<context>: <strerror(code)>"`, MPD's form for a failed system call.
    static func system(_ context: String, errno code: Int32) -> OutputError {
        OutputError("\(context): \(String(cString: strerror(code)))", code: code)
    }
}
