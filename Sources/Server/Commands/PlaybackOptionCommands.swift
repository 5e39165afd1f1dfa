import MPDProtocol
import Playback
import Settings

/// Commands of MPD's "Playback options" group: modes, crossfade, replay gain and volume.
enum PlaybackOptionCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("consume", permission: .player, arguments: .exactly(1)) { invocation in
            guard let mode = ConsumeMode(protocolValue: invocation.arguments[0]) else {
                throw MPDError(.argument, "Unrecognized consume mode, expected 0, 1, or oneshot")
            }
            invocation.player.setConsume(mode)
            return .ok
        },
        CommandDefinition("crossfade", permission: .player, arguments: .exactly(1)) { invocation in
            invocation.player.setCrossfade(Int(try Arguments.unsigned(invocation.arguments[0])))
            return .ok
        },
        CommandDefinition("getvol", permission: .read, arguments: .exactly(0)) { invocation in
            if let volume = invocation.player.volume { invocation.response.append("volume", volume) }
            return .ok
        },
        CommandDefinition("mixrampdb", permission: .player, arguments: .exactly(1)) { invocation in
            invocation.player.setMixRampDB(try Arguments.float(invocation.arguments[0]))
            return .ok
        },
        CommandDefinition("mixrampdelay", permission: .player, arguments: .exactly(1)) { invocation in
            invocation.player.setMixRampDelay(try Arguments.float(invocation.arguments[0]))
            return .ok
        },
        CommandDefinition("random", permission: .player, arguments: .exactly(1)) { invocation in
            invocation.player.setRandom(try Arguments.boolean(invocation.arguments[0]))
            return .ok
        },
        CommandDefinition("shufflemode", permission: .player, arguments: .exactly(1), handler: shuffleMode),
        CommandDefinition("repeat", permission: .player, arguments: .exactly(1)) { invocation in
            invocation.player.setRepeat(try Arguments.boolean(invocation.arguments[0]))
            return .ok
        },
        CommandDefinition("replay_gain_mode", permission: .player, arguments: .exactly(1)) { invocation in
            guard let mode = ReplayGainMode(rawValue: invocation.arguments[0]) else {
                throw MPDError(.argument, "Unrecognized replay gain mode")
            }
            invocation.player.setReplayGainMode(mode)
            return .ok
        },
        CommandDefinition("replay_gain_status", permission: .read, arguments: .exactly(0)) { invocation in
            invocation.response.append("replay_gain_mode", invocation.player.replayGainMode.rawValue)
            return .ok
        },
        CommandDefinition("setvol", permission: .player, arguments: .exactly(1)) { invocation in
            let level = Int(try Arguments.unsigned(invocation.arguments[0], maximum: 100))
            // Without a mixer: ACK 5 (`CommandError`), where `volume` answers ACK 52.
            try invocation.player.setVolume({ _ in level }, alwaysAnnounce: true)
            return .ok
        },
        CommandDefinition("single", permission: .player, arguments: .exactly(1)) { invocation in
            guard let mode = SingleMode(protocolValue: invocation.arguments[0]) else {
                throw MPDError(.argument, "Unrecognized single mode, expected 0, 1, or oneshot")
            }
            invocation.player.setSingle(mode)
            return .ok
        },
        CommandDefinition("volume", permission: .player, arguments: .exactly(1)) { invocation in
            let change = try Arguments.integer(invocation.arguments[0], in: -100...100)
            do {
                try invocation.player.setVolume { $0 + change }
            } catch {
                // MPD's `volume` looks for a mixer itself and answers ACK 52, where `setvol`
                // gets the generic ACK 5 of its mixer code.
                throw MPDError(.system, CommandError.ack(for: error).message)
            }
            return .ok
        },
    ]

    /// `shufflemode off|songs|albums` (Tonearm's; MPD has only song shuffle): random off, or
    /// on with that mode. `random 1` turns on the mode last chosen, so that every client's
    /// shuffle button keeps it; `status` says `shufflemode: albums` while that is the mode.
    static func shuffleMode(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let argument = invocation.arguments[0]
        if argument == "off" {
            invocation.player.setShuffle(nil)
        } else if let mode = ShuffleMode(rawValue: argument) {
            invocation.player.setShuffle(mode)
        } else {
            throw MPDError(.argument, "Unrecognized shuffle mode, expected off, songs, or albums")
        }
        return .ok
    }
}
