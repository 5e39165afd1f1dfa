import MediaLibrary
import MPDProtocol
import Testing

@testable import Server

/// The one table where the library's errors become MPD's `ACK` codes and messages.
@Suite("Command errors")
struct CommandErrorTests {
    /// `CODE message` of the ACK `error` answers.
    private func ack(_ error: any Error) -> String {
        let ack = CommandError.ack(for: error)
        return "\(ack.code.rawValue) \(ack.message)"
    }

    @Test("library errors answer MPD's codes and messages")
    func libraryErrors() {
        let expected: [(LibraryError, String)] = [
            (.invalidRegularExpression(pattern: "(", syntax: RegexSyntaxError(offset: 1, message: "missing closing parenthesis")),
             "2 Error in regex at offset 1: missing closing parenthesis"),
            (.invalidRegularExpression(pattern: "(", syntax: nil), "2 Failed to compile regex"),
            (.noSuchDirectory("a/b"), "50 No such directory"),
            (.invalidPlaylistName("a/b"), "2 Bad playlist name"),
            (.noSuchPlaylist("x"), "50 No such playlist"),
            (.playlistExists("x"), "56 Playlist already exists"),
            (.renameTargetExists("x"), "56 Playlist exists already"),
            (.playlistTooLarge, "51 Stored playlist is too large"),
            (.positionPastEnd(4), "2 Bad position"),
            (.rangeStartPastEnd(5), "2 Bad song index"),
            (.rangeOutOfBounds, "2 Bad range"),
            (.fileOperationFailed(.open, path: "/srv/p", reason: "Permission denied"), "52 Failed to open /srv/p: Permission denied"),
            (.fileOperationFailed(.replace, path: "/srv/p", reason: "No space left on device"),
             "52 Failed to replace /srv/p: No space left on device"),
            (.updateQueueFull, "54 Update queue is full"),
        ]
        for (error, answer) in expected {
            #expect(ack(error) == answer)
        }
    }

    @Test("an MPD error stays as it is; anything else is ACK 5 with its description")
    func otherErrors() {
        #expect(ack(MPDError(.argument, "Bad song index")) == "2 Bad song index")
        struct Unexpected: Error, CustomStringConvertible {
            var description: String { "something broke" }
        }
        #expect(ack(Unexpected()) == "5 something broke")
    }
}
