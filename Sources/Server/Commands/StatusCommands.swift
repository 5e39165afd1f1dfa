import Configuration
import MediaLibrary
import MPDProtocol

/// Commands of MPD's "Querying MPD's status" group.
enum StatusCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("idle", permission: .read, arguments: .atLeast(0), handler: idle),
        CommandDefinition("stats", permission: .read, arguments: .exactly(0), handler: stats),
        CommandDefinition("status", permission: .read, arguments: .exactly(0), handler: status),
    ]

    /// `status`, in MPD's field order. Until the player exists the queue is empty and playback
    /// stopped; what is live is the database update (`updating_db`).
    static func status(_ invocation: inout CommandInvocation) -> CommandOutcome {
        invocation.response.append("repeat", "0")
        invocation.response.append("random", "0")
        invocation.response.append("single", "0")
        invocation.response.append("consume", "0")
        invocation.response.append("partition", invocation.session.partition)
        invocation.response.append("playlist", "1")
        invocation.response.append("playlistlength", "0")
        invocation.response.append("mixrampdb", "0")
        invocation.response.append("state", "stop")
        invocation.response.append("lastloadedplaylist", "")
        if let job = invocation.server.library?.updates.runningJobID {
            invocation.response.append("updating_db", job)
        }
        return .ok
    }

    /// `stats`: uptime, time played, and the database's figures.
    static func stats(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let uptime = ContinuousClock.now - invocation.server.startTime
        invocation.response.append("uptime", uptime.components.seconds)
        invocation.response.append("playtime", "0")
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
