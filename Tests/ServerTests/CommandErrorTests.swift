import MPDProtocol
import Playback
import Testing

@testable import Server

/// The table from the player's errors to MPD's ACKs: every case with its code and words, as
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
}
