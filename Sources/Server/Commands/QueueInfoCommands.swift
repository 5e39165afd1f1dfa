import MPDProtocol
import MediaLibrary
import MusicModel
import Playback
import Settings

/// The reading commands of MPD's "The Queue" group.
enum QueueInfoCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("playlist", permission: .read, arguments: .exactly(0)) { invocation in
            for (position, entry) in invocation.player.queue.entries.enumerated() {
                invocation.response.append("\(position):file", entry.song.uri)
            }
            return .ok
        },
        CommandDefinition("playlistfind", permission: .read, arguments: .atLeast(1)) { invocation in
            try await printMatches(&invocation, foldCase: false)
        },
        CommandDefinition("playlistid", permission: .read, arguments: .between(0, 1)) { invocation in
            let queue = invocation.player.queue
            guard let text = invocation.arguments.first else {
                return try await printEntries(&invocation, queue, positions: queue.entries.indices)
            }
            guard let position = queue.position(ofID: Int(try Arguments.unsigned(text))) else {
                throw MPDError(.noExist, "No such song")
            }
            return try await printEntries(&invocation, queue, positions: position..<(position + 1))
        },
        CommandDefinition("playlistinfo", permission: .read, arguments: .between(0, 1)) { invocation in
            let queue = invocation.player.queue
            let range = try invocation.arguments.first.map(Arguments.range) ?? .all
            let end = range.upperBound(clippedTo: queue.count)
            guard range.start <= end else { throw MPDError(.argument, "Bad song index") }
            return try await printEntries(&invocation, queue, positions: range.start..<end)
        },
        CommandDefinition("playlistsearch", permission: .read, arguments: .atLeast(1)) { invocation in
            try await printMatches(&invocation, foldCase: true)
        },
        CommandDefinition("plchanges", permission: .read, arguments: .between(1, 2)) { invocation in
            let (queue, positions) = try changes(invocation)
            return try await printEntries(&invocation, queue, positions: positions)
        },
        CommandDefinition("plchangesposid", permission: .read, arguments: .between(1, 2)) { invocation in
            let (queue, positions) = try changes(invocation)
            for position in positions {
                invocation.response.append("cpos", position)
                invocation.response.append("Id", queue.id(at: position))
            }
            return .ok
        },
    ]

    /// Song blocks of queue entries, each followed by `Pos`, `Id` and a non-zero `Prio`.
    static func printEntries(
        _ invocation: inout CommandInvocation, _ queue: Queue, positions: some Sequence<Int>
    ) async throws -> CommandOutcome {
        let tags = invocation.visibleTags
        for position in positions {
            write(queue.entry(at: position), position: position, tags: tags, to: &invocation.response)
            try await invocation.flushIfLarge()
        }
        return .ok
    }

    /// One queue entry as MPD's `queue_print_song_info` prints it.
    static func write(_ entry: QueueEntry, position: Int, tags: TagMask, to response: inout ResponseBuffer) {
        var song = entry.song
        if !entry.range.isWhole { song.duration = entry.playedDuration }
        SongPrinter.write(song, tags: tags, range: entry.range, to: &response)
        response.append("Pos", position)
        response.append("Id", entry.id)
        if entry.priority != 0 { response.append("Prio", entry.priority) }
    }

    /// `plchanges VERSION [START:END]`: the positions changed since VERSION — all of them
    /// when VERSION is newer than the queue.
    private static func changes(_ invocation: CommandInvocation) throws(MPDError) -> (Queue, [Int]) {
        // MPD reads the version with strtoul and keeps the low 32 bits, so -1 is a huge version.
        let version = UInt32(truncatingIfNeeded: try Arguments.unsigned(invocation.arguments[0], maximum: .max))
        let queue = invocation.player.queue
        let range = try invocation.arguments.count > 1 ? Arguments.range(invocation.arguments[1]) : .all
        guard range.start < queue.count else { return (queue, []) }
        return (
            queue, queue.positionsChanged(since: version, in: range.start..<range.upperBound(clippedTo: queue.count))
        )
    }

    /// `playlistfind` / `playlistsearch FILTER [sort TYPE] [window START:END]`: the queue
    /// entries whose songs match. Queue songs come from the database, so the filter runs
    /// there and the queue is printed in its own order.
    private static func printMatches(_ invocation: inout CommandInvocation, foldCase: Bool) async throws
        -> CommandOutcome
    {
        var selection = try DatabaseSelection.parse(
            invocation.arguments[...], foldCase: foldCase, allowsPosition: false, allowsPriority: true)
        let window = selection.window
        selection.window = nil
        // Priorities live in the queue, not the database: the database only filters then.
        let byPriority = selection.sort.flatMap { $0.key == .priority ? $0 : nil }
        if byPriority != nil { selection.sort = nil }
        let queue = invocation.player.queue
        guard !queue.isEmpty else { return .ok }
        let library = try invocation.server.requireLibrary()
        // The rank of each matching URI in the database's (sorted) answer.
        var rank: [String: Int] = [:]
        let ids: [Int64]
        do {
            ids = try await library.songIDs(selection)
        } catch LibraryError.noSuchDirectory {
            // MPD matches the queue's songs themselves: a `base` that names nothing in the
            // database matches none of them, which is no error.
            return .ok
        }
        var start = 0
        while start < ids.count {
            let page = Array(ids[start..<min(start + 1000, ids.count)])
            start += page.count
            for song in try await library.songs(ids: page) where rank[song.uri] == nil { rank[song.uri] = rank.count }
        }
        var positions = queue.entries.indices.filter { rank[queue.song(at: $0).uri] != nil }
        if let byPriority {
            // MPD's stable sort: equal priorities keep their queue order, either way.
            positions.sort { first, second in
                let (a, b) = (queue.entries[first].priority, queue.entries[second].priority)
                return a != b ? (byPriority.descending ? a > b : a < b) : first < second
            }
        } else if selection.sort != nil {
            positions.sort { (rank[queue.song(at: $0).uri]!, $0) < (rank[queue.song(at: $1).uri]!, $1) }
        }
        if let window {
            let low = min(window.start, positions.count)
            positions = Array(positions[low..<max(low, window.upperBound(clippedTo: positions.count))])
        }
        return try await printEntries(&invocation, queue, positions: positions)
    }
}
