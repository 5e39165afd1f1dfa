/// MPD's numeric error classes, as sent in `ACK [code@index]` (MPD's `src/protocol/Ack.hxx`).
package enum AckCode: Int, Sendable, Hashable {
    /// Defined by MPD but never sent.
    case notList = 1
    /// Bad or missing arguments.
    case argument = 2
    /// `incorrect password`.
    case password = 3
    /// The client lacks the permission, or the operation is denied.
    case permission = 4
    /// Unknown command, tokenizer errors and any otherwise unclassified failure.
    case unknown = 5
    /// The thing named does not exist.
    case noExist = 50
    /// The queue or a stored playlist is full.
    case playlistMax = 51
    /// An I/O or system error.
    case system = 52
    /// Defined by MPD but never sent.
    case playlistLoad = 53
    /// The update queue is full.
    case updateAlready = 54
    /// The operation needs playback (`Not playing`, `No current song`).
    case playerSync = 55
    /// The thing to create exists already.
    case exist = 56
}

/// A failed command: what becomes one `ACK` line.
///
/// Every handler reports failure by throwing one of these; the session adds the command-list
/// index and the command name when it writes the line.
package struct MPDError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error class.
    package let code: AckCode
    /// The message, already a single line.
    package let message: String

    /// Creates an error. Line breaks and runs of blanks in `message` are folded into single
    /// spaces, as MPD does, so that an ACK is always one line.
    package init(_ code: AckCode, _ message: String) {
        self.code = code
        self.message = MPDError.sanitize(message)
    }

    package var description: String { "[\(code.rawValue)] \(message)" }

    /// Turns every run of control characters (line breaks, tabs) into one space, so that an
    /// ACK stays one line. Spaces are kept as they are: MPD prints `Integer expected: ` with
    /// its trailing blank when the argument was empty.
    static func sanitize(_ message: String) -> String {
        guard message.utf8.contains(where: { $0 < 0x20 }) else { return message }
        var out: [UInt8] = []
        out.reserveCapacity(message.utf8.count)
        var inControl = false
        for byte in message.utf8 {
            if byte < 0x20 {
                if !inControl { out.append(0x20) }
                inControl = true
            } else {
                inControl = false
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Formats the `ACK` line MPD sends for a failed command.
package enum AckLine {
    /// The full line including its newline: `ACK [code@index] {command} message\n`.
    ///
    /// - Parameters:
    ///   - error: the failure.
    ///   - index: the position of the command in its command list; 0 outside lists.
    ///   - command: the canonical command name, or `""` when the failure happened before the
    ///     command was looked up (tokenizer errors, unknown commands).
    package static func format(_ error: MPDError, index: Int, command: String) -> String {
        "ACK [\(error.code.rawValue)@\(index)] {\(command)} \(error.message)\n"
    }
}
