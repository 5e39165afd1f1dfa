import MPDProtocol
import MediaLibrary
import MusicModel
import Playback
import Settings

/// The editing commands of MPD's "The Queue" group.
enum QueueEditCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("add", permission: .add, arguments: .between(1, 2), handler: add),
        CommandDefinition("addid", permission: .add, arguments: .between(1, 2), handler: addID),
        CommandDefinition("addtagid", permission: .add, arguments: .exactly(3)) { invocation in
            let id = Int(try Arguments.unsigned(invocation.arguments[0]))
            guard let type = TagType(name: invocation.arguments[1]) else {
                throw MPDError(.argument, "Unknown tag type: \(invocation.arguments[1])")
            }
            try invocation.player.addTag(id: id, type, invocation.arguments[2])
            return .ok
        },
        CommandDefinition("clear", permission: .player, arguments: .exactly(0)) { invocation in
            invocation.player.clear()
            return .ok
        },
        CommandDefinition("cleartagid", permission: .add, arguments: .between(1, 2)) { invocation in
            let id = Int(try Arguments.unsigned(invocation.arguments[0]))
            var type: TagType?
            if invocation.arguments.count == 2 {
                guard let named = TagType(name: invocation.arguments[1]) else {
                    throw MPDError(.argument, "Unknown tag type: \(invocation.arguments[1])")
                }
                type = named
            }
            try invocation.player.clearTags(id: id, type)
            return .ok
        },
        CommandDefinition("delete", permission: .player, arguments: .exactly(1)) { invocation in
            try invocation.player.delete(range: try Arguments.range(invocation.arguments[0]))
            return .ok
        },
        CommandDefinition("deleteid", permission: .player, arguments: .exactly(1)) { invocation in
            try invocation.player.delete(id: Int(try Arguments.unsigned(invocation.arguments[0])))
            return .ok
        },
        CommandDefinition("move", permission: .player, arguments: .exactly(2), handler: move),
        CommandDefinition("moveid", permission: .player, arguments: .exactly(2), handler: moveID),
        CommandDefinition("prio", permission: .player, arguments: .atLeast(2)) { invocation in
            let priority = UInt8(try Arguments.unsigned(invocation.arguments[0], maximum: 255))
            // As MPD: each range is read and applied in turn, so a bad one stops the rest only.
            for text in invocation.arguments.dropFirst() {
                try invocation.player.setPriority(priority, ranges: [try Arguments.range(text)])
            }
            return .ok
        },
        CommandDefinition("prioid", permission: .player, arguments: .atLeast(2)) { invocation in
            let priority = UInt8(try Arguments.unsigned(invocation.arguments[0], maximum: 255))
            // As MPD: each id is read and applied in turn (a missing one stops before the next
            // is even read).
            for text in invocation.arguments.dropFirst() {
                try invocation.player.setPriority(priority, ids: [Int(try Arguments.unsigned(text))])
            }
            return .ok
        },
        CommandDefinition("rangeid", permission: .add, arguments: .exactly(2), handler: rangeID),
        CommandDefinition("shuffle", permission: .player, arguments: .between(0, 1)) { invocation in
            let range = try invocation.arguments.first.map(Arguments.range) ?? .all
            try invocation.player.shuffle(range)
            return .ok
        },
        CommandDefinition("swap", permission: .player, arguments: .exactly(2)) { invocation in
            let first = Int(try Arguments.unsigned(invocation.arguments[0]))
            let second = Int(try Arguments.unsigned(invocation.arguments[1]))
            try invocation.player.swap(first, second)
            return .ok
        },
        CommandDefinition("swapid", permission: .player, arguments: .exactly(2)) { invocation in
            let first = Int(try Arguments.unsigned(invocation.arguments[0]))
            let second = Int(try Arguments.unsigned(invocation.arguments[1]))
            try invocation.player.swap(id: first, id: second)
            return .ok
        },
    ]

    /// `add URI [POSITION]`: a song, a stream URL, or a directory's songs in database order (`/`
    /// or the empty URI: the whole database), as one change.
    static func add(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let player = invocation.player
        let position = try invocation.arguments.count > 1 ? insertPosition(invocation.arguments[1], player) : nil
        let argument = invocation.arguments[0]
        if let url = try LibraryURI.stream(argument) {
            // A stream is queued as it is, without connecting, as MPD queues it.
            try player.add([Song(streamURL: url)], at: position)
            return .ok
        }
        let library = try invocation.server.requireLibrary()
        let uri: String
        if argument == "/" {
            // Not a valid URI, but clients send it for "everything", and MPD accepts it.
            uri = ""
        } else if let path = try LibraryURI.filePath(argument) {
            // MPD's `add` locates a file path without the music directory: only a local client
            // may add one, and then only what the database knows.
            guard invocation.session.isLocal, let relative = relativeURI(path, library) else {
                throw MPDError(.permission, "Access denied")
            }
            uri = relative
        } else {
            guard let located = try LibraryURI.local(argument, allowEmpty: true) else {
                throw MPDError(.noExist, "No such directory")
            }
            uri = located
        }
        let songs = try await songs(under: uri, in: library)
        try player.add(songs, at: position)
        return .ok
    }

    /// `addid URI [POSITION]`: one song or stream URL; answers its queue id.
    static func addID(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let player = invocation.player
        // MPD reads POSITION before it looks at the URI, so a bad position is named first. It is
        // read again for the add: other sessions may change the queue during the lookup.
        if invocation.arguments.count > 1 { _ = try insertPosition(invocation.arguments[1], player) }
        let argument = invocation.arguments[0]
        if let url = try LibraryURI.stream(argument) {
            let position = try invocation.arguments.count > 1 ? insertPosition(invocation.arguments[1], player) : nil
            invocation.response.append("Id", try player.add([Song(streamURL: url)], at: position)[0])
            return .ok
        }
        let library = try invocation.server.requireLibrary()
        let uri: String
        if let path = try LibraryURI.filePath(argument) {
            // `addid` maps a path inside the music directory to its song, for every client.
            if let relative = relativeURI(path, library) {
                uri = relative
            } else {
                guard invocation.session.isLocal else { throw MPDError(.permission, "Access denied") }
                throw MPDError(.noExist, "No such song")
            }
        } else {
            guard let located = try LibraryURI.local(argument, allowEmpty: false) else {
                throw MPDError(.noExist, "No such song")
            }
            uri = located
        }
        guard let song = try library.song(at: uri) else { throw MPDError(.noExist, "No such song") }
        let position = try invocation.arguments.count > 1 ? insertPosition(invocation.arguments[1], player) : nil
        let ids = try player.add([song], at: position)
        invocation.response.append("Id", ids[0])
        return .ok
    }

    /// The URI of a file path inside the music directory, or `nil` when it is outside.
    static func relativeURI(_ path: String, _ library: Library) -> String? {
        var root = library.settings.musicDirectory
        while root.hasSuffix("/") { root.removeLast() }
        guard path.hasPrefix(root + "/") else { return nil }
        let relative = String(path.dropFirst(root.count + 1))
        return LibraryURI.isSafeLocal(relative) ? relative : nil
    }

    /// The songs `add` takes for `uri`: the song, or everything below the directory.
    static func songs(under uri: String, in library: Library) async throws -> [Song] {
        if !uri.isEmpty, let song = try library.song(at: uri) { return [song] }
        var songs: [Song] = []
        var cursor: Int64 = 0
        while true {
            guard let page = try await library.walk(uri, recursive: true, details: true, after: cursor, limit: 1000)
            else {
                throw MPDError(.noExist, "No such directory")
            }
            for case .song(let song) in page.entries { songs.append(song) }
            guard let next = page.next else { return songs }
            cursor = next
        }
    }

    /// MPD's `ParseInsertPosition`: an absolute position, or `+N`/`-N` after/before the
    /// current song.
    static func insertPosition(_ text: String, _ player: PlayerController) throws(MPDError) -> Int {
        let length = player.queueLength
        if text.hasPrefix("+") || text.hasPrefix("-") {
            guard let current = player.currentEntry?.position else { throw MPDError(.playerSync, "No current song") }
            let offset = String(text.dropFirst())
            if text.hasPrefix("+") {
                return current + 1 + Int(try Arguments.unsigned(offset, maximum: UInt64(length - current - 1)))
            }
            return current - Int(try Arguments.unsigned(offset, maximum: UInt64(current)))
        }
        return Int(try Arguments.unsigned(text, maximum: UInt64(length)))
    }

    /// MPD's `ParseMoveDestination` for moving `range`.
    static func moveDestination(_ text: String, _ range: Range<Int>, _ player: PlayerController) throws(MPDError) -> Int
    {
        let length = player.queueLength
        if text.hasPrefix("+") || text.hasPrefix("-") {
            guard var current = player.currentEntry?.position else { throw MPDError(.playerSync, "No current song") }
            if range.contains(current) { throw MPDError(.argument, "Cannot move current song relative to itself") }
            if current >= range.upperBound { current -= range.count }
            let offset = Int(
                try Arguments.unsigned(
                    String(text.dropFirst()), maximum: UInt64(max(0, length - current - range.count))))
            return text.hasPrefix("+") ? current + 1 + offset : current - offset
        }
        // MPD's unsigned `length - count` wraps when FROM is past the queue: any TO passes here
        // and the move then fails with `Bad song index`.
        let room = length - range.count
        return Int(try Arguments.unsigned(text, maximum: room >= 0 ? UInt64(room) : UInt64(UInt32.max)))
    }

    /// `move START:END TO` (or `move POS TO`).
    static func move(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let range = try Arguments.range(invocation.arguments[0])
        guard let end = range.end else { throw MPDError(.argument, "Open-ended range not supported") }
        let player = invocation.player
        let length = player.queueLength
        // MPD reads TO before it checks FROM against the queue.
        let destination = try moveDestination(invocation.arguments[1], range.start..<max(range.start, end), player)
        guard range.start < end, range.start < length, end <= length else {
            throw MPDError(.argument, "Bad song index")
        }
        try player.move(range.start..<end, to: destination)
        return .ok
    }

    /// `moveid ID TO`.
    static func moveID(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let id = Int(try Arguments.unsigned(invocation.arguments[0]))
        let player = invocation.player
        guard let position = player.position(ofID: id) else { throw MPDError(.noExist, "No such song") }
        let destination = try moveDestination(invocation.arguments[1], position..<(position + 1), player)
        try player.move(position..<(position + 1), to: destination)
        return .ok
    }

    /// `rangeid ID START:END`: seconds, either side optional; `:` clears the range.
    static func rangeID(_ invocation: inout CommandInvocation) throws -> CommandOutcome {
        let id = Int(try Arguments.unsigned(invocation.arguments[0]))
        guard let range = timeRange(invocation.arguments[1]) else { throw MPDError(.argument, "Bad range") }
        try invocation.player.setRange(id: id, range)
        return .ok
    }

    /// MPD's `parse_time_range`: `START:END` with non-negative seconds, END after START.
    static func timeRange(_ text: String) -> SongTimeRange? {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        func seconds(_ part: Substring) -> Double?? {
            if part.isEmpty { return .some(nil) }
            guard let value = try? Arguments.float(String(part)), value >= 0 else { return nil }
            return .some(Double(value))
        }
        guard let start = seconds(parts[0]), let end = seconds(parts[1]) else { return nil }
        let from = start ?? 0
        let to = end.flatMap { $0 == 0 ? nil : $0 }
        if let to, to <= from { return nil }
        return SongTimeRange(start: from, end: to)
    }
}
