#if canImport(Glibc)
    import Glibc
#endif

/// What goes wrong in the library, said in the library's own terms.
///
/// The library knows nothing of the protocol: the server decides which `ACK` code and message
/// each case becomes, in one table, as MPD maps its `PlaylistResult` and `DatabaseErrorCode`.
package enum LibraryError: Error, Sendable, Equatable {
    // MARK: Queries

    /// A filter's regular expression does not compile. `syntax` is PCRE2's account of it when
    /// libpcre2 is there to give one (Tonearm matches with ICU, whose errors say neither where
    /// nor why).
    case invalidRegularExpression(pattern: String, syntax: RegexSyntaxError?)
    /// A filter's `base` names neither a directory nor a song of the database.
    case noSuchDirectory(String)

    // MARK: Stored playlists

    /// A stored playlist name that cannot be a file name: empty, or holding `/` or a line break.
    case invalidPlaylistName(String)
    /// No stored playlist has this name.
    case noSuchPlaylist(String)
    /// Saving in `create` mode found a playlist of this name.
    case playlistExists(String)
    /// Renaming found a playlist under the new name already.
    case renameTargetExists(String)
    /// The edit would make the playlist longer than `max_playlist_length`.
    case playlistTooLarge
    /// An insertion position past the end of the playlist.
    case positionPastEnd(Int)
    /// A removal whose range starts past the end of the playlist.
    case rangeStartPastEnd(Int)
    /// A move whose range passes the end of the playlist, or whose destination does not fit.
    case rangeOutOfBounds
    /// An edit of a smart playlist, whose songs its rule chooses.
    case smartPlaylistNotEditable(String)
    /// A smart playlist file that does not read: its name, the line (from 1) and what is wrong.
    case invalidSmartPlaylist(String, line: Int, reason: String)

    // MARK: Files

    /// A file operation failed; `reason` is the system's description of the error.
    case fileOperationFailed(FileOperation, path: String, reason: String)

    // MARK: Stickers

    /// SQLite refused a sticker write (a full disk, a read-only file); the text is SQLite's.
    case stickerWriteFailed(String)

    // MARK: Updates

    /// As many update jobs wait already as the queue holds.
    case updateQueueFull
    /// The update would have emptied the library, or most of it, because the music looks away
    /// rather than gone (``UpdateGuard``): it changed nothing. The text says why.
    case updateRefused(String)
}

/// A file operation of the library, as a failure names it.
package enum FileOperation: String, Sendable, Equatable {
    /// Opening a file or directory to read it.
    case open
    /// Reading an open file.
    case read
    /// Writing a file (a playlist's temporary file).
    case write
    /// Creating a file or directory.
    case create
    /// Deleting a file.
    case delete
    /// Renaming a file to another name the user gave.
    case rename
    /// Putting a newly written file in the place of the old one.
    case replace
}

/// Where and why PCRE2 refuses a regular expression, in PCRE2's words.
package struct RegexSyntaxError: Sendable, Equatable {
    /// The offset in the pattern at which compiling stopped.
    package var offset: Int
    /// PCRE2's message.
    package var message: String

    /// Creates a syntax error.
    package init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }
}

extension LibraryError {
    /// A failed file operation described by the current `errno`, which must be read before
    /// anything else can change it.
    static func fileOperationFailed(_ operation: FileOperation, path: String) -> LibraryError {
        .fileOperationFailed(operation, path: path, reason: String(cString: strerror(errno)))
    }
}
