import GRDB
public import MPDProtocol

/// One line of `count … group TAG`.
public struct CountGroup: Sendable, Equatable {
    /// The group's value; `nil` when the count has no group.
    public var value: String?
    /// How many songs.
    public var songs: Int64
    /// Their total duration in seconds.
    public var playtime: Double
}

extension MediaLibrary {
    /// `list`: the distinct combinations of the group tags' and the subject's values, each row
    /// outermost group first and the subject last, sorted by bytes, the window applied to the
    /// outermost level. A song without a tag (and its fallbacks) contributes an empty value.
    public func list(_ selection: ListSelection) async throws -> [[String]] {
        if let filter = selection.filter { try Self.validateRegexes(filter) }
        let condition = selection.filter.map(FilterSQL.condition) ?? .alwaysTrue
        let rows: [[String]] = try await store.pool.read { db in
            if let filter = selection.filter { try Self.validateBase(db, filter) }
            guard case .tag(let subject) = selection.subject else {
                return try String.fetchAll(db, sql: "SELECT s.uri FROM song s WHERE \(condition.sql) ORDER BY s.ord",
                                           arguments: StatementArguments(condition.arguments)).map { [$0] }
            }
            let levels = selection.groups.reversed() + [subject]
            let values = try Self.effectiveValues(db, condition, tags: levels)
            var combinations = Set<[String]>()
            for perSong in values {
                var partial: [[String]] = [[]]
                for levelValues in perSong {
                    partial = partial.flatMap { prefix in levelValues.map { prefix + [$0] } }
                }
                combinations.formUnion(partial)
            }
            return combinations.sorted { a, b in
                for (x, y) in zip(a, b) where x != y { return ByteOrder.precedes(x, y) }
                return a.count < b.count
            }
        }
        guard case .tag = selection.subject, let window = selection.window else { return rows }
        // The window counts values of the outermost level.
        var outer: [String] = []
        for row in rows where row.first != outer.last { outer.append(row[0]) }
        let start = min(window.start, outer.count)
        let kept = Set(outer[start..<max(start, window.upperBound(clippedTo: outer.count))])
        return rows.filter { kept.contains($0[0]) }
    }

    /// `count`: the number and total duration of the matching songs, per value of the group tag
    /// when there is one (sorted by bytes; an empty value for songs without it).
    public func count(_ selection: CountSelection) async throws -> [CountGroup] {
        if let filter = selection.filter { try Self.validateRegexes(filter) }
        let condition = selection.filter.map(FilterSQL.condition) ?? .alwaysTrue
        return try await store.pool.read { db in
            if let filter = selection.filter { try Self.validateBase(db, filter) }
            guard let group = selection.group else {
                let row = try Row.fetchOne(db, sql: "SELECT count(*), total(duration) FROM song s WHERE \(condition.sql)",
                                           arguments: StatementArguments(condition.arguments))
                return [CountGroup(value: nil, songs: row?[0] ?? 0, playtime: row?[1] ?? 0)]
            }
            let durations = try Self.matchingDurations(db, condition)
            let values = try Self.effectiveValues(db, condition, tags: [group], ids: durations.map(\.id))
            var totals: [String: (songs: Int64, playtime: Double)] = [:]
            for (song, perSong) in zip(durations, values) {
                for value in Set(perSong[0]) {
                    totals[value, default: (0, 0)].songs += 1
                    totals[value, default: (0, 0)].playtime += song.duration
                }
            }
            return totals.keys.sorted(by: ByteOrder.precedes).map {
                CountGroup(value: $0, songs: totals[$0]!.songs, playtime: totals[$0]!.playtime)
            }
        }
    }

    private static func matchingDurations(_ db: Database, _ condition: SQLFragment) throws -> [(id: Int64, duration: Double)] {
        try Row.fetchAll(db, sql: "SELECT s.id, coalesce(s.duration, 0) FROM song s WHERE \(condition.sql) ORDER BY s.id",
                         arguments: StatementArguments(condition.arguments)).map { ($0[0], $0[1]) }
    }

    /// For each matching song (by ascending id), for each of `tags`, the values the song
    /// contributes: its own, else the first fallback's, else one empty value.
    private static func effectiveValues(
        _ db: Database,
        _ condition: SQLFragment,
        tags: [TagType],
        ids knownIDs: [Int64]? = nil
    ) throws -> [[[String]]] {
        let ids = try knownIDs ?? Int64.fetchAll(db, sql: "SELECT s.id FROM song s WHERE \(condition.sql) ORDER BY s.id",
                                                 arguments: StatementArguments(condition.arguments))
        let needed = Set(tags.flatMap { [$0] + TagFallback.chain(for: $0) })
        var index: [Int64: Int] = [:]
        index.reserveCapacity(ids.count)
        for (position, id) in ids.enumerated() { index[id] = position }
        var tagsPerSong = Array(repeating: [TagValue](), count: ids.count)
        let list = needed.map { String($0.rawValue) }.joined(separator: ",")
        let cursor = try Row.fetchCursor(db, sql: "SELECT song, tag, value FROM songTag WHERE tag IN (\(list)) ORDER BY id")
        while let row = try cursor.next() {
            guard let position = index[row[0]], let tag = TagType(rawValue: row[1]) else { continue }
            tagsPerSong[position].append(TagValue(tag, row[2]))
        }
        return tagsPerSong.map { songTags in
            tags.map { tag in
                let values = TagFallback.effectiveValues(of: tag, in: songTags)
                return values.isEmpty ? [""] : values
            }
        }
    }
}
