import MPDProtocol
import MediaLibrary
import Playback
import Testing

@testable import Server

/// The table from the library's and the player's errors to MPD's ACKs: every case with its code and words, as
/// the integration and conformance tests compare them with MPD's.
@Suite struct CommandErrorTests {
    /// What the dispatcher writes for `error`, as "CODE message".
    func ack(_ error: any Error) -> String {
        let ack = CommandError.ack(for: error)
        return "\(ack.code.rawValue) \(ack.message)"
    }

    @Test(arguments: [
        (QueueError.badSongIndex, "2 Bad song index"),
        (.noSuchSong, "50 No such song"),
        (.tooLarge, "51 Playlist is too large"),
        (.cannotEditCurrentSong, "4 Cannot edit the current song"),
        (.startPastSongEnd, "2 Invalid start offset"),
    ])
    func queueErrors(error: QueueError, expected: String) {
        #expect(ack(error) == expected)
    }

    @Test func playerAndMixerErrors() {
        #expect(ack(PlayerError.notPlaying) == "55 Not playing")
        // `setvol`'s answer; `volume` answers ACK 52 with the same words.
        #expect(ack(MixerError.noMixer) == "5 No mixer")
    }

    @Test(arguments: [
        (OutputAttributeError.noSuchOutput, "50 No such audio output"),
        (.unsupported, "2 Unsupported attribute"),
        (.invalidDoP, "2 Bad 'dop' value"),
        (.invalidAllowedFormat(reason: "Invalid sample rate: 0"), "2 Invalid sample rate: 0"),
    ])
    func outputAttributeErrors(error: OutputAttributeError, expected: String) {
        #expect(ack(error) == expected)
    }

    /// A handler's own ACK passes through; anything unclassified is ACK 5 with its description.
    @Test func otherErrors() {
        #expect(ack(MPDError(.exist, "Playlist already exists")) == "56 Playlist already exists")
        struct Unexpected: Error, CustomStringConvertible { var description: String { "went wrong" } }
        #expect(ack(Unexpected()) == "5 went wrong")
    }

    @Test("library errors answer MPD's codes and messages")
    func libraryErrors() {
        let expected: [(LibraryError, String)] = [
            (
                .invalidRegularExpression(
                    pattern: "(", syntax: RegexSyntaxError(offset: 1, message: "missing closing parenthesis")),
                "2 Error in regex at offset 1: missing closing parenthesis"
            ),
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
            (
                .fileOperationFailed(.open, path: "/srv/p", reason: "Permission denied"),
                "52 Failed to open /srv/p: Permission denied"
            ),
            (
                .fileOperationFailed(.replace, path: "/srv/p", reason: "No space left on device"),
                "52 Failed to replace /srv/p: No space left on device"
            ),
            (.updateQueueFull, "54 Update queue is full"),
        ]
        for (error, answer) in expected {
            #expect(ack(error) == answer)
        }
    }
}
