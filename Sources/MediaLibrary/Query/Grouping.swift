import GRDB
package import MusicModel

/// One line of `count … group TAG`.
package struct CountGroup: Sendable, Equatable {
    /// The group's value; `nil` when the count has no group.
    package var value: String?
    /// How many songs.
    package var songs: Int64
    /// Their total duration in seconds.
    package var playtime: Double

    /// `playtime` as MPD prints it: whole seconds, the rest cut off (MPD sums milliseconds and
    /// casts to seconds, in `count` as in `stats`' `db_playtime`).
    package var wholeSeconds: Int64 { Self.wholeSeconds(playtime) }

    /// `seconds` cut to whole seconds, once rounded to the millisecond, so that a sum such as
    /// 1.1 + 1.9 that floating point makes 2.999… counts 3, as MPD's milliseconds do.
    package static func wholeSeconds(_ seconds: Double) -> Int64 {
        Int64((seconds * 1000).rounded()) / 1000
    }
}

extension Library {
    /// `list TAG`: the distinct combinations of the group tags' and `subject`'s values, each
    /// row outermost group first and the subject last, sorted by bytes, the window applied to
    /// the outermost level. A song without a tag (and its fallbacks) contributes an empty value.
    /// (`list file` prints URIs page by page instead: ``writeURIs(after:limit:into:)``.)
    package func list(_ selection: ListSelection, subject: TagType) async throws -> [[String]] {
        if let filter = selection.filter { try Self.validateRegexes(filter) }
        let levels = selection.groups.reversed() + [subject]
        let rows: [[String]] = try await store.read(mayScan: mayScan(selection.filter, levels)) { db in
            if let filter = selection.filter { try Self.validateBase(db, filter) }
            let condition = try selection.filter.map { try store.condition($0, db) }
            return try Self.combinations(db, condition, levels: levels, cache: store.tagColumns)
        }
        guard let window = selection.window else { return rows }
        return Self.windowed(rows, window)
    }

    /// The rows of `list` whose outermost value is in `window`, which counts the distinct
    /// outermost values (rows are sorted, so equal values are adjacent).
    static func windowed(_ rows: [[String]], _ window: RangeArgument) -> [[String]] {
        var outer: [String] = []
        for row in rows where row.first != outer.last { outer.append(row[0]) }
        let start = min(window.start, outer.count)
        let kept = Set(outer[start..<max(start, window.upperBound(clippedTo: outer.count))])
        return rows.filter { kept.contains($0[0]) }
    }

    /// The distinct combinations of the levels' values over the songs matching `condition`
    /// (all songs, from the cached columns, when `nil`), sorted by bytes level by level.
    static func combinations(_ db: Database, _ condition: SQLFragment?, levels: [TagType], cache: TagColumnCache) throws
        -> [[String]]
    {
        var consumer = Combinations(levels: levels.count)
        let values: [Interner]
        let orders: [(ids: [Int32], ranks: [Int32])]
        if condition == nil {
            let (columns, durations) = try cache.columns(levels, db)
            ColumnWalk.run(columns, durations: durations, into: &consumer)
            values = columns.map(\.values)
            orders = columns.map(\.order)
        } else {
            var scan = GroupScan(levels: levels, consumer: consumer)
            try scan.run(db, condition) { scan, blob, count, duration in
                scan.assumingMemoryBound(to: GroupScan<Combinations>.self).pointee
                    .visit(UnsafeRawBufferPointer(start: blob, count: count), duration)
            }
            consumer = scan.consumer
            values = scan.interners
            orders = values.map { $0.byteOrder() }
        }
        let pairs = consumer.pairs
        if consumer.packs {
            // Sort the pairs as one integer each: outer rank in the high half, inner in the low.
            let inner = levels.count - 1
            let ranked = pairs.map { pair -> UInt64 in
                let innerRank = UInt64(UInt32(orders[inner].ranks[Int(UInt32(truncatingIfNeeded: pair))]))
                guard inner == 1 else { return innerRank }
                return UInt64(UInt32(orders[0].ranks[Int(pair >> 32)])) << 32 | innerRank
            }
            return ranked.sorted().map { pair in
                let innerValue = values[inner].string(orders[inner].ids[Int(UInt32(truncatingIfNeeded: pair))])
                guard inner == 1 else { return [innerValue] }
                return [values[0].string(orders[0].ids[Int(pair >> 32)]), innerValue]
            }
        }
        let ranked = consumer.combinations.map { ids in
            ids.enumerated().map { orders[$0.offset].ranks[Int($0.element)] }
        }
        return ranked.sorted { $0.lexicographicallyPrecedes($1) }.map { row in
            row.enumerated().map { level, rank in values[level].string(orders[level].ids[Int(rank)]) }
        }
    }

    /// Whether a grouping over `levels` may read every song: through its filter, or, without
    /// one, to build the columns it needs (27 ms at 100,000 songs, after each change), or to
    /// count every song (no levels).
    private func mayScan(_ filter: FilterExpression?, _ levels: [TagType]) -> Bool {
        guard let filter else { return levels.isEmpty || !store.tagColumns.holds(levels) }
        return FilterSQL.mayScan(filter)
    }

    /// `count`: the number and total duration of the matching songs, per value of the group tag
    /// when there is one (sorted by bytes; an empty value for songs without it).
    package func count(_ selection: CountSelection) async throws -> [CountGroup] {
        if let filter = selection.filter { try Self.validateRegexes(filter) }
        return try await store.read(mayScan: mayScan(selection.filter, selection.group.map { [$0] } ?? [])) { db in
            if let filter = selection.filter { try Self.validateBase(db, filter) }
            let condition = try selection.filter.map { try store.condition($0, db) }
            guard let group = selection.group else {
                let condition = condition ?? .alwaysTrue
                let row = try Row.fetchOne(
                    db, sql: "SELECT count(*), total(duration) FROM song s WHERE \(condition.sql)",
                    arguments: StatementArguments(condition.arguments))
                return [CountGroup(value: nil, songs: row?[0] ?? 0, playtime: row?[1] ?? 0)]
            }
            return try Self.countGroups(db, condition, group: group, cache: store.tagColumns)
        }
    }

    /// The songs and playtime per value of `group` over the songs matching `condition` (all
    /// songs, from the cached column, when `nil`), sorted by bytes. A song counts once for each
    /// distinct value it has.
    static func countGroups(_ db: Database, _ condition: SQLFragment?, group: TagType, cache: TagColumnCache) throws
        -> [CountGroup]
    {
        var totals = Totals()
        let values: Interner
        let order: [Int32]
        if condition == nil {
            let (columns, durations) = try cache.columns([group], db)
            ColumnWalk.run(columns, durations: durations, into: &totals)
            values = columns[0].values
            order = columns[0].order.ids
        } else {
            var scan = GroupScan(levels: [group], consumer: totals)
            try scan.run(db, condition) { scan, blob, count, duration in
                scan.assumingMemoryBound(to: GroupScan<Totals>.self).pointee
                    .visit(UnsafeRawBufferPointer(start: blob, count: count), duration)
            }
            totals = scan.consumer
            values = scan.interners[0]
            order = values.byteOrder().ids
        }
        return order.map {
            CountGroup(value: values.string($0), songs: totals.songs[Int($0)], playtime: totals.playtime[Int($0)])
        }
    }
}

/// `list`'s part of a ``GroupScan``: the distinct combinations of the levels' value ids.
struct Combinations: GroupConsumer {
    /// Whether there are one or two levels (`list TAG`, `list TAG group TAG`), whose ids pack
    /// into one integer each: ``pairs`` then, else ``combinations``.
    let packs: Bool
    private let levels: Int
    /// One or two levels: the outer id in the high half (0 for one level), the inner in the low.
    private(set) var pairs = Set<UInt64>()
    /// Three levels or more.
    private(set) var combinations = Set<[Int32]>()

    /// A collector for `levels` levels.
    init(levels: Int) {
        self.levels = levels
        packs = levels <= 2
    }

    /// Adds the song's combinations, unless it repeats the previous song.
    mutating func consume(_ song: SongValues) {
        // Songs of one album follow each other and mostly repeat the previous song.
        if song.repeatsPrevious { return }
        if packs {
            let outerIDs = levels == 2 ? song.ids(of: 0) : UnsafeBufferPointer(start: nil, count: 0)
            for inner in song.ids(of: levels - 1) {
                if outerIDs.isEmpty { pairs.insert(UInt64(UInt32(inner))) }
                for outer in outerIDs { pairs.insert(UInt64(UInt32(outer)) << 32 | UInt64(UInt32(inner))) }
            }
            return
        }
        var partial: [[Int32]] = [[]]
        for level in 0..<levels {
            let ids = song.ids(of: level)
            partial = partial.flatMap { prefix in ids.map { prefix + [$0] } }
        }
        combinations.formUnion(partial)
    }
}

/// `count … group`'s part of a ``GroupScan``: songs and playtime per value id.
struct Totals: GroupConsumer {
    /// Songs per value id.
    private(set) var songs: [Int64] = []
    /// Seconds per value id.
    private(set) var playtime: [Double] = []

    /// Adds the song, with its duration, to each of its values.
    mutating func consume(_ song: SongValues) {
        // A song counts once for each distinct value it has.
        for (index, id) in song.ids.enumerated() where index == 0 || !song.ids[..<index].contains(id) {
            let slot = Int(id)
            if slot >= songs.count {
                songs.append(contentsOf: repeatElement(0, count: slot + 1 - songs.count))
                playtime.append(contentsOf: repeatElement(0, count: slot + 1 - playtime.count))
            }
            songs[slot] += 1
            playtime[slot] += song.duration
        }
    }
}
