import MediaLibrary
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
        case let error as LibraryError:
            return ack(for: error)
        default:
            return MPDError(.unknown, String(describing: error))
        }
    }

    /// The library's errors in MPD's words.
    private static func ack(for error: LibraryError) -> MPDError {
        switch error {
        case .invalidRegularExpression(_, let syntax):
            // MPD gives PCRE2's account; without libpcre2 only a generic message is left.
            guard let syntax else { return MPDError(.argument, "Failed to compile regex") }
            return MPDError(.argument, "Error in regex at offset \(syntax.offset): \(syntax.message)")
        case .noSuchDirectory:
            return MPDError(.noExist, "No such directory")
        case .invalidPlaylistName:
            return MPDError(.argument, "Bad playlist name")
        case .noSuchPlaylist:
            return MPDError(.noExist, "No such playlist")
        case .playlistExists:
            return MPDError(.exist, "Playlist already exists")
        case .renameTargetExists:
            // MPD's `spl_rename` words it the other way round.
            return MPDError(.exist, "Playlist exists already")
        case .playlistTooLarge:
            return MPDError(.playlistMax, "Stored playlist is too large")
        case .positionPastEnd:
            return MPDError(.argument, "Bad position")
        case .rangeStartPastEnd:
            return MPDError(.argument, "Bad song index")
        case .rangeOutOfBounds:
            // MPD 0.23's message for one position out of range.
            return MPDError(.argument, "Bad range")
        case .fileOperationFailed(let operation, let path, let reason):
            return MPDError(.system, "Failed to \(operation.rawValue) \(path): \(reason)")
        case .updateQueueFull:
            return MPDError(.updateAlready, "Update queue is full")
        }
    }
}
