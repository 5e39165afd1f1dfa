import MPDProtocol
import Playback
import Settings

/// Commands of MPD's "Controlling playback" group.
enum PlaybackCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("next", permission: .player, arguments: .exactly(0)) { invocation in
            try invocation.player.next()
            return .ok
        },
        CommandDefinition("pause", permission: .player, arguments: .between(0, 1)) { invocation in
            invocation.player.pause(try invocation.arguments.first.map(Arguments.boolean))
            return .ok
        },
        CommandDefinition("play", permission: .player, arguments: .between(0, 1), handler: play),
        CommandDefinition("playid", permission: .player, arguments: .between(0, 1), handler: playID),
        CommandDefinition("previous", permission: .player, arguments: .exactly(0)) { invocation in
            try invocation.player.previous()
            return .ok
        },
        CommandDefinition("seek", permission: .player, arguments: .exactly(2)) { invocation in
            let position = try Arguments.unsigned(invocation.arguments[0])
            let time = seekTime(try Arguments.songTime(invocation.arguments[1]))
            try invocation.player.seek(position: Int(position), to: time)
            return .ok
        },
        CommandDefinition("seekcur", permission: .player, arguments: .exactly(1), handler: seekCurrent),
        CommandDefinition("seekid", permission: .player, arguments: .exactly(2)) { invocation in
            let id = try Arguments.unsigned(invocation.arguments[0])
            let time = seekTime(try Arguments.songTime(invocation.arguments[1]))
            try invocation.player.seek(id: Int(id), to: time)
            return .ok
        },
        CommandDefinition("stop", permission: .player, arguments: .exactly(0)) { invocation in
            invocation.player.stop()
            return .ok
        },
    ]

    /// `play [POS]`: MPD 0.24 reads a signed number and takes -1 as "no position".
    static func play(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let position = try invocation.arguments.first.map { try Arguments.integer($0) }
        try invocation.player.play(position: position == -1 ? nil : position)
        return .ok
    }

    /// `playid [ID]`; -1 means "no id", as for `play`.
    static func playID(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let id = try invocation.arguments.first.map { try Arguments.integer($0) }
        if let id, id < -1 { throw MPDError(.noExist, "No such song") }
        try invocation.player.play(id: id == -1 ? nil : id)
        return .ok
    }

    /// `seekcur [+-]TIME`: a sign makes the time relative to the current position.
    static func seekCurrent(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let text = invocation.arguments[0]
        let relative = text.hasPrefix("+") || text.hasPrefix("-")
        let time = seekTime(Double(try Arguments.float(text)))
        try invocation.player.seekCurrent(time, relative: relative)
        return .ok
    }

    /// The latest time a seek can name: MPD holds song times in 32-bit milliseconds, so a
    /// later one (up to `inf`) is past the end of any song.
    static let latestSeekTime = Double(UInt32.max) / 1000

    /// A seek time the player can hold and print: the float parser takes `inf`, `1e30` and
    /// `nan`, which would reach `status` and the state file as `elapsed: inf` (and trapped
    /// when converted to an integer). NaN seeks to the start.
    static func seekTime(_ seconds: Double) -> Double {
        seconds.isNaN ? 0 : min(seconds, latestSeekTime)
    }
}

extension CommandInvocation {
    /// The player of the client's partition.
    var player: PlayerController { server.player(for: session) }
}
