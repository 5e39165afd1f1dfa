import MPDProtocol
import MediaLibrary
import MusicModel
import Settings

/// The query commands of MPD's "music database" group: `find`, `search`, `count`,
/// `searchcount`, `list`.
enum DatabaseQueryCommands {
    static let definitions: [CommandDefinition] = [
        CommandDefinition("count", permission: .read, arguments: .atLeast(1), handler: count),
        CommandDefinition("find", permission: .read, arguments: .atLeast(1), handler: find),
        CommandDefinition("list", permission: .read, arguments: .atLeast(1), handler: list),
        CommandDefinition("search", permission: .read, arguments: .atLeast(1), handler: search),
        CommandDefinition("searchcount", permission: .read, arguments: .atLeast(1), handler: searchCount),
    ]

    /// How many songs one database read fetches while a result streams (see
    /// ``DatabaseBrowseCommands/pageBytes``).
    static let pageSize = 200

    /// `find FILTER [sort TYPE] [window START:END]`: matching songs, case-sensitively.
    static func find(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        try await printSongs(&invocation, foldCase: false)
    }

    /// `search FILTER [sort TYPE] [window START:END]`: matching songs, case-insensitively.
    static func search(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        try await printSongs(&invocation, foldCase: true)
    }

    private static func printSongs(_ invocation: inout CommandInvocation, foldCase: Bool) async throws -> CommandOutcome
    {
        let selection = try DatabaseSelection.parse(
            invocation.arguments[...], foldCase: foldCase, allowsPosition: false)
        let library = try invocation.server.requireLibrary()
        let tags = invocation.visibleTags
        var blocks = SongBlocks()
        if let songs = try await library.writeMatchingSongs(
            selection, limit: oneReadLimit, into: &blocks,
            { record, blocks in blocks.write { SongPrinter.write(record, tags: tags, to: &$0) } })
        {
            try await send(&invocation, songs, of: blocks, library: library, tags: tags)
            return .ok
        }
        let ids = try await library.songIDs(selection)
        try await printPages(&invocation, ids, size: pageSize) { page, lines in
            try await library.writeSongs(ids: page, into: &lines) { record, lines in
                SongPrinter.write(record, tags: tags, to: &lines)
            }
        }
        return .ok
    }

    /// The most songs whose text `find` and `search` hold from their one read
    /// (``Library/writeMatchingSongs``), about 3 MB for 10,000 songs of the bench's library;
    /// the songs past it are read and printed in pages of ``pageSize`` as they are sent.
    static let oneReadLimit = 10_000

    /// Sends `songs` in order, flushing as the response grows: the bytes written into `blocks`,
    /// and the songs past the limit read a page at a time. Songs that lie one after another in
    /// `blocks` (the library writes them in the order of their ids) are copied as one run.
    private static func send(
        _ invocation: inout CommandInvocation, _ songs: [MatchingSong], of blocks: SongBlocks, library: Library,
        tags: TagMask
    ) async throws {
        var index = songs.startIndex
        var page = SongBlocks()
        var fetched: [Int64: Range<Int>] = [:]
        var fetchedUntil = index
        while index < songs.endIndex {
            guard let first = songs[index].bytes else {
                if index >= fetchedUntil {
                    // The next page's songs that were not written: one read for them all.
                    fetchedUntil = min(index + pageSize, songs.endIndex)
                    page = SongBlocks()
                    fetched.removeAll(keepingCapacity: true)
                    let missing = songs[index..<fetchedUntil].compactMap { $0.bytes == nil ? $0.id : nil }
                    try await library.writeSongs(ids: missing, into: &page) { id, record, page in
                        let start = page.count
                        page.write { SongPrinter.write(record, tags: tags, to: &$0) }
                        fetched[id] = start..<page.count
                    }
                }
                // A song deleted since the first read is left out, as a page of ids would.
                if let bytes = fetched[songs[index].id] { page.copy(bytes, to: &invocation.response) }
                index += 1
                try await invocation.flushIfLarge()
                continue
            }
            var run = first
            index += 1
            while index < songs.endIndex, let next = songs[index].bytes, next.lowerBound == run.upperBound,
                invocation.response.count + run.count < ResponseStream.flushThreshold
            {
                run = run.lowerBound..<next.upperBound
                index += 1
            }
            blocks.copy(run, to: &invocation.response)
            try await invocation.flushIfLarge()
        }
    }

    /// Prints the songs `ids` name in pages of `size`: `write` reads one page's lines into
    /// the buffer it is given, which are written (and the loop's other sessions let in) before
    /// the next page is read.
    private static func printPages(
        _ invocation: inout CommandInvocation, _ ids: [Int64], size: Int,
        _ write: ([Int64], inout ResponseBuffer) async throws -> Void
    ) async throws {
        var start = 0
        while start < ids.count {
            let page = Array(ids[start..<min(start + size, ids.count)])
            start += page.count
            var lines = ResponseBuffer()
            try await write(page, &lines)
            invocation.response.append(contentsOf: lines)
            try await invocation.flushIfLarge()
        }
    }

    /// `count FILTER [group TAG]`: how many songs match and their total time.
    static func count(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        try await printCount(&invocation, foldCase: false)
    }

    /// `searchcount FILTER [group TAG]`: `count`, case-insensitively (MPD 0.24).
    static func searchCount(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        try await printCount(&invocation, foldCase: true)
    }

    private static func printCount(_ invocation: inout CommandInvocation, foldCase: Bool) async throws -> CommandOutcome
    {
        let selection = try CountSelection.parse(invocation.arguments[...], foldCase: foldCase)
        let library = try invocation.server.requireLibrary()
        for group in try await library.count(selection) {
            if let value = group.value, let tag = selection.group { invocation.response.append(tag.name, value) }
            invocation.response.append("songs", group.songs)
            invocation.response.append("playtime", group.wholeSeconds)
        }
        return .ok
    }

    /// How many URIs one database read fetches while `list file` streams: about 50 KiB.
    static let uriPageSize = 1000

    /// `list TYPE [FILTER] [group TAG]... [window START:END]`: distinct values, nested by group.
    static func list(_ invocation: inout CommandInvocation) async throws -> CommandOutcome {
        let selection = try ListSelection.parse(invocation.arguments[...])
        let library = try invocation.server.requireLibrary()
        guard case .tag(let subject) = selection.subject else {
            return try await listURIs(&invocation, library, filter: selection.filter)
        }
        let rows = try await library.list(selection, subject: subject)
        let names = selection.groups.reversed().map { $0.name } + [subject.name]
        var previous: [String] = []
        for row in rows {
            // A level is printed again only when it or a level outside it changed.
            var changed = previous.count != row.count
            for (level, value) in row.enumerated() {
                if !changed && previous[level] != value { changed = true }
                if changed || level == row.count - 1 { invocation.response.append(names[level], value) }
            }
            previous = row
            try await invocation.flushIfLarge()
        }
        return .ok
    }

    /// `list file [FILTER]`: every matching song's URI in database order, streamed page by
    /// page as `find` streams its songs (MPD prints them as it visits the songs, unsorted).
    private static func listURIs(
        _ invocation: inout CommandInvocation, _ library: Library, filter: FilterExpression?
    ) async throws -> CommandOutcome {
        guard let filter else {
            var cursor: Library.SongPosition?
            repeat {
                var lines = ResponseBuffer()
                cursor = try await library.writeURIs(after: cursor, limit: uriPageSize, into: &lines)
                invocation.response.append(contentsOf: lines)
                try await invocation.flushIfLarge()
            } while cursor != nil
            return .ok
        }
        let ids = try await library.songIDs(DatabaseSelection(filter: filter))
        try await printPages(&invocation, ids, size: uriPageSize) { page, lines in
            try await library.writeURIs(ids: page, into: &lines)
        }
        return .ok
    }
}
