import MPDProtocol
import MediaLibrary
import MusicModel
import Playback
import Settings

/// Commands of MPD's "Querying MPD's status" group.
enum StatusCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("clearerror", permission: .player, arguments: .exactly(0)) { invocation in
            invocation.player.clearError()
            invocation.server.library?.updates.clearError()
            return .ok
        },
        CommandDefinition("currentsong", permission: .read, arguments: .exactly(0), handler: currentSong),
        CommandDefinition("idle", permission: .read, arguments: .atLeast(0), handler: idle),
        CommandDefinition("stats", permission: .read, arguments: .exactly(0), handler: stats),
        CommandDefinition("status", permission: .read, arguments: .exactly(0), handler: status),
    ]

    /// `status`, in MPD's field order (`handle_status`).
    static func status(_ invocation: inout CommandInvocation) -> CommandOutcome {
        let status = invocation.player.status
        // Written in place: a copy of the response (`var response = invocation.response`) made
        // its first line copy the whole buffer.
        write(
            status, partition: invocation.session.partition, library: invocation.server.library,
            to: &invocation.response)
        return .ok
    }

    private static func write(
        _ status: PlayerStatus,
        partition: String,
        library: Library?,
        to response: inout ResponseBuffer
    ) {
        if let volume = status.volume { response.append("volume", volume) }
        response.append("repeat", status.repeatMode ? "1" : "0")
        response.append("random", status.random ? "1" : "0")
        response.append("single", status.single.rawValue)
        response.append("consume", status.consume.rawValue)
        response.append("partition", partition)
        response.append("playlist", status.queueVersion)
        response.append("playlistlength", status.queueLength)
        response.append("mixrampdb", NumberFormat.shortest(Double(status.mixRampDB)))
        response.append("state", status.state.rawValue)
        response.append("lastloadedplaylist", status.lastLoadedPlaylist)
        if status.crossfade > 0 { response.append("xfade", status.crossfade) }
        if status.mixRampDelay > 0 {
            response.append("mixrampdelay", NumberFormat.shortest(Double(status.mixRampDelay)))
        }
        if let current = status.current {
            response.append("song", current.position)
            response.append("songid", current.id)
        }
        if status.state != .stop, let elapsed = status.elapsed {
            let total = status.duration.map { Int64($0.rounded()) } ?? 0
            response.append("time", "\(Int64(elapsed.rounded())):\(total)")
            response.append("elapsed", NumberFormat.threeDecimals(elapsed))
            response.append("bitrate", status.bitrate)
            if let duration = status.duration { response.append("duration", NumberFormat.threeDecimals(duration)) }
            if let format = status.audioFormat { response.append("audio", format) }
        }
        if let job = library?.updates.runningJobID {
            response.append("updating_db", job)
        }
        // The player's error first; else why the last update was refused (the music folder is
        // away), so that every client shows it.
        if let error = status.error ?? library?.updates.error { response.append("error", error) }
        if let next = status.next {
            response.append("nextsong", next.position)
            response.append("nextsongid", next.id)
        }
        // Tonearm's line, last and only for the mode MPD lacks, so that with song shuffle the
        // answer is MPD's to the byte.
        if status.shuffleMode == .albums { response.append("shufflemode", status.shuffleMode.rawValue) }
    }

    /// `currentsong`: the current song's block with its queue position and id (also while
    /// stopped); nothing when there is none.
    static func currentSong(_ invocation: inout CommandInvocation) -> CommandOutcome {
        guard let (entry, position) = invocation.player.currentEntry else { return .ok }
        QueueInfoCommands.write(entry, position: position, tags: invocation.visibleTags, to: &invocation.response)
        return .ok
    }

    /// `stats`: uptime, time played, and the database's figures.
    static func stats(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let uptime = ContinuousClock.now - invocation.server.startTime
        invocation.response.append("uptime", uptime.components.seconds)
        invocation.response.append("playtime", Int64(invocation.player.playedSeconds.rounded()))
        guard let library = invocation.server.library else { return .ok }
        let figures = try await library.statistics()
        invocation.response.append("artists", figures.artists)
        invocation.response.append("albums", figures.albums)
        invocation.response.append("songs", figures.songs)
        invocation.response.append("db_playtime", figures.playtime)
        if let update = figures.lastUpdate { invocation.response.append("db_update", update) }
        return .ok
    }

    /// `idle [SUBSYSTEM...]`: wait for changes; names are case-insensitive, none means all.
    static func idle(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        var mask: IdleSubsystems = []
        for name in invocation.arguments {
            guard let subsystem = IdleSubsystems(name: name) else {
                throw MPDError(.argument, "Unrecognized idle event: \(name)")
            }
            mask.formUnion(subsystem)
        }
        return .idle(mask.isEmpty ? .all : mask)
    }
}
