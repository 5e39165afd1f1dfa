import MPDProtocol
import MediaLibrary
import Playback

/// Turns what a command handler throws into the `ACK` it answers: the one table where the
/// errors of the library and the player, which speak their own domain, meet MPD's codes and
/// messages (as MPD's `src/command/CommandError.cxx` maps its `PlaylistResult` and
/// `DatabaseErrorCode`).
///
/// A domain error gets the code and words MPD answers it with in most commands. A command
/// that MPD answers otherwise catches the error in its handler and throws its own ``MPDError``
/// (`volume` without a mixer).
enum CommandError {
    /// The `ACK` for `error`: an ``MPDError`` as it is, a domain error as its case says, and
    /// anything else ACK 5 with its description, as MPD answers an unclassified exception.
    static func ack(for error: any Error) -> MPDError {
        switch error {
        case let error as MPDError:
            return error
        case let error as QueueError:
            return ack(for: error)
        case let error as PlayerError:
            return ack(for: error)
        case let error as MixerError:
            return ack(for: error)
        case let error as OutputAttributeError:
            return ack(for: error)
        case let error as LibraryError:
            return ack(for: error)
        default:
            return MPDError(.unknown, String(describing: error))
        }
    }

    /// MPD's `PlaylistResult` answers: `BAD_RANGE`, `NO_SUCH_SONG`, `TOO_LARGE`, `DENIED`.
    static func ack(for error: QueueError) -> MPDError {
        switch error {
        case .badSongIndex: MPDError(.argument, "Bad song index")
        case .noSuchSong: MPDError(.noExist, "No such song")
        case .tooLarge: MPDError(.playlistMax, "Playlist is too large")
        case .cannotEditCurrentSong: MPDError(.permission, "Cannot edit the current song")
        case .startPastSongEnd: MPDError(.argument, "Invalid start offset")
        case .localFileTags: MPDError(.permission, "Cannot edit tags of local file")
        case .notSeekable: MPDError(.unknown, "Not seekable")
        }
    }

    /// MPD's `PlaylistResult::NOT_PLAYING`.
    static func ack(for error: PlayerError) -> MPDError {
        switch error {
        case .notPlaying: MPDError(.playerSync, "Not playing")
        // MPD's player throws a plain runtime error, which becomes ACK 5.
        case .notSeekable: MPDError(.unknown, "Not seekable")
        }
    }

    /// MPD's mixer code throws a plain runtime error without a mixer, which becomes ACK 5
    /// (`setvol`); `volume` checks first and answers ACK 52 with the same words.
    static func ack(for error: MixerError) -> MPDError {
        switch error {
        case .noMixer: MPDError(.unknown, "No mixer")
        }
    }

    /// `outputset`: MPD's plugins throw `std::invalid_argument` (ACK 2) for what they do not
    /// take, and a missing output is ACK 50.
    static func ack(for error: OutputAttributeError) -> MPDError {
        switch error {
        case .noSuchOutput: MPDError(.noExist, "No such audio output")
        case .unsupported: MPDError(.argument, "Unsupported attribute")
        case .invalidDoP: MPDError(.argument, "Bad 'dop' value")
        case .invalidAllowedFormat(let reason): MPDError(.argument, reason)
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
        case .smartPlaylistNotEditable(let name):
            // MPD's `PlaylistResult::DENIED`, the code of its other edits that are not allowed.
            return MPDError(.permission, "Cannot edit smart playlist \(name.mpdQuoted): its rule chooses its songs")
        case .invalidSmartPlaylist(let name, let line, let reason):
            // MPD defines ACK 53 for a playlist that does not load, and never uses it.
            return MPDError(
                .playlistLoad,
                "Bad smart playlist \(name.mpdQuoted): \(name)\(StoredPlaylists.smartSuffix):\(line): \(reason)")
        case .fileOperationFailed(let operation, let path, let reason):
            return MPDError(.system, "Failed to \(operation.rawValue) \(path): \(reason)")
        case .stickerWriteFailed(let reason):
            // MPD's sticker code throws `SqliteError(stmt, result, "sqlite3_step() failed")`,
            // whose text is that and SQLite's message; an unclassified error is ACK 5.
            return MPDError(.unknown, "sqlite3_step() failed: \(reason)")
        case .updateQueueFull:
            return MPDError(.updateAlready, "Update queue is full")
        case .updateRefused(let reason):
            return MPDError(.system, reason)
        }
    }
}
