import MPDProtocol

/// Turns what a command handler throws into the `ACK` it answers: the one table where the
/// errors of the library and the player, which speak their own domain, meet MPD's codes and
/// messages (as MPD's `src/command/CommandError.cxx` maps its `PlaylistResult` and
/// `DatabaseErrorCode`).
enum CommandError {
    /// The `ACK` for `error`: an ``MPDError`` as it is, a domain error as its case says, and
    /// anything else ACK 5 with its description, as MPD answers an unclassified exception.
    static func ack(for error: any Error) -> MPDError {
        switch error {
        case let error as MPDError:
            return error
        default:
            return MPDError(.unknown, String(describing: error))
        }
    }
}
