import GRDB
import MusicModel
import Synchronization

/// One level of `list` or `count … group` over the whole library, held in memory: for every
/// song (in `songTagList` order) the ids of the values it contributes to that level (its own,
/// else its first fallback's, else the empty value; see ``GroupScan``), and the values.
///
/// Browsing clients ask for the same few unfiltered groupings again and again (every album,
/// every album artist, every genre). Reading them from these arrays costs a few nanoseconds
/// per song; reading and decoding each song's packed tags through SQLite cost about 90 ns,
/// which at 10,000 songs left Tonearm behind MPD's in-memory tree.
final class TagColumn: @unchecked Sendable {
    // Unchecked: every property is set in `init` and never changed; the buffers are the
    // column's own, freed with it. Raw buffers, not arrays: the per-song loop reading arrays
    // through an array of columns spent 80 % of its time retaining and releasing them.

    /// The level's tag (its fallbacks come with it).
    let tag: TagType
    /// Song `i`'s ids are `ids[offsets[i]..<offsets[i + 1]]`.
    let offsets: UnsafeBufferPointer<Int32>
    /// The value ids, song after song.
    let ids: UnsafeBufferPointer<Int32>
    /// The values.
    let values: Interner
    /// The ids in byte order and each id's rank there (``Interner/byteOrder()``).
    let order: (ids: [Int32], ranks: [Int32])

    /// A column holding copies of `offsets` and `ids`.
    init(tag: TagType, offsets: [Int32], ids: [Int32], values: Interner) {
        self.tag = tag
        self.offsets = UnsafeBufferPointer(Self.copy(offsets))
        self.ids = UnsafeBufferPointer(Self.copy(ids))
        self.values = values
        order = values.byteOrder()
    }

    deinit {
        offsets.deallocate()
        ids.deallocate()
    }

    /// How many songs.
    var songs: Int { offsets.count - 1 }

    /// About how many bytes the column holds.
    var footprint: Int { 4 * (offsets.count + ids.count + order.ids.count + order.ranks.count) + values.footprint }

    private static func copy(_ array: [Int32]) -> UnsafeMutableBufferPointer<Int32> {
        let buffer = UnsafeMutableBufferPointer<Int32>.allocate(capacity: array.count)
        _ = buffer.initialize(from: array)
        return buffer
    }
}

/// What is derived from one state of the database and kept for the queries after it: the
/// ``TagColumn``s built so far, the songs' durations, and the ``TagAlphabets``.
///
/// Each is built on first use (the columns and durations by one ``GroupScan`` over every song)
/// and kept until the database changes: the cache is keyed by the database's `generation` (in
/// `meta`, raised by every scan that changes anything), read in the same transaction as the
/// query, so nothing is used with data of another state. Columns are kept within a byte
/// budget, the least recently used dropped first; ``LibraryStore/releaseMemory()`` drops
/// everything.
final class TagColumnCache: Sendable {
    /// How many bytes of columns are kept. At 100,000 songs a column of a tag with few values
    /// (album, artist, genre) takes about 1 MiB; one with a value per song (title) about 7 MiB.
    let budget: Int

    private struct State {
        var generation: Int64 = -1
        /// Most recently used first.
        var columns: [TagColumn] = []
        var durations: [Double]?
        var alphabets: TagAlphabets?

        /// Makes the state the one of `generation`, unless that is older than the state kept:
        /// an older reader finishing late must not evict a newer state's data. Returns whether
        /// the state is now `generation`'s.
        mutating func move(to generation: Int64) -> Bool {
            guard self.generation != generation else { return true }
            guard generation > self.generation else { return false }
            self = State(generation: generation)
            return true
        }
    }

    private let state = Mutex(State())

    /// Creates an empty cache keeping up to `budget` bytes of columns.
    init(budget: Int = 16 << 20) {
        self.budget = budget
    }

    /// The newest database generation the cache has seen; -1 before the first query.
    var generationSeen: Int64 { state.withLock { $0.generation } }

    /// The tags of the columns kept, most recently used first.
    var keptTags: [TagType] { state.withLock { $0.columns.map(\.tag) } }

    /// Whether the columns of `levels` are kept (for the newest state of the database the
    /// cache has seen): if not, the next ``columns(_:_:)`` reads every song to build them.
    func holds(_ levels: [TagType]) -> Bool {
        state.withLock { state in
            state.durations != nil && levels.allSatisfy { tag in state.columns.contains { $0.tag == tag } }
        }
    }

    /// The columns of `levels`, in that order, and every song's duration (0 when unknown), as of
    /// the database state `db` reads; builds what is missing.
    func columns(_ levels: [TagType], _ db: Database) throws -> (columns: [TagColumn], durations: [Double]) {
        let generation = try LibraryStore.meta(db, "generation") ?? 0
        let cached: (found: [TagColumn?], durations: [Double]?) = state.withLock { state in
            guard state.move(to: generation) else { return (levels.map { _ in nil }, nil) }
            let found = levels.map { tag in state.columns.first { $0.tag == tag } }
            for column in found.compactMap({ $0 }) {
                state.columns.removeAll { $0.tag == column.tag }
                state.columns.insert(column, at: 0)
            }
            return (found, state.durations)
        }
        if let durations = cached.durations, cached.found.allSatisfy({ $0 != nil }) {
            return (cached.found.map { $0! }, durations)
        }
        let missing = levels.indices.filter { cached.found[$0] == nil }.map { levels[$0] }
        let (built, durations) = try Self.build(missing.isEmpty ? [levels[0]] : missing, db)
        state.withLock { state in
            guard state.generation == generation else { return }
            for column in built where !state.columns.contains(where: { $0.tag == column.tag }) {
                state.columns.insert(column, at: 0)
            }
            // Most recently used first, each kept if it still fits: one column too big for the
            // budget is not kept, and does not push the others out.
            var kept = 0
            state.columns = state.columns.filter { column in
                guard kept + column.footprint <= budget else { return false }
                kept += column.footprint
                return true
            }
            state.durations = durations
        }
        let columns = levels.enumerated().map { index, tag in
            cached.found[index] ?? built.first { $0.tag == tag }!
        }
        return (columns, durations)
    }

    /// The alphabets of the database state `db` reads, read on first use after a change.
    func alphabets(_ db: Database) throws -> TagAlphabets {
        let generation = try LibraryStore.meta(db, "generation") ?? 0
        let cached = state.withLock { $0.move(to: generation) ? $0.alphabets : nil }
        if let cached { return cached }
        let alphabets = try TagAlphabets.read(db)
        state.withLock { state in
            if state.generation == generation { state.alphabets = alphabets }
        }
        return alphabets
    }

    /// Drops everything kept (``LibraryStore/releaseMemory()``, and a database emptied in place,
    /// whose generations go on after ``generationSeen``); the generation seen stays, so that an
    /// older reader finishing late does not put its data back.
    func removeAll() {
        state.withLock { $0 = State(generation: $0.generation) }
    }

    /// The columns of `tags` and the durations, from one pass over every song.
    private static func build(_ tags: [TagType], _ db: Database) throws -> ([TagColumn], [Double]) {
        var scan = GroupScan(levels: tags, consumer: ColumnRecorder(levels: tags.count))
        try scan.run(db, nil) { scan, blob, count, duration in
            scan.assumingMemoryBound(to: GroupScan<ColumnRecorder>.self).pointee
                .visit(UnsafeRawBufferPointer(start: blob, count: count), duration)
        }
        let recorder = scan.consumer
        let columns = tags.indices.map { level in
            TagColumn(
                tag: tags[level], offsets: recorder.offsets[level], ids: recorder.ids[level],
                values: scan.interners[level])
        }
        return (columns, recorder.durations)
    }
}

/// A ``GroupScan`` consumer that keeps every song's ids per level, for ``TagColumn``s.
struct ColumnRecorder: GroupConsumer {
    /// Per level, where each song's ids start (and, last, where they end).
    private(set) var offsets: [[Int32]]
    /// Per level, the ids, song after song.
    private(set) var ids: [[Int32]]
    /// Every song's duration.
    private(set) var durations: [Double] = []

    /// A recorder for `levels` levels.
    init(levels: Int) {
        offsets = Array(repeating: [0], count: levels)
        ids = Array(repeating: [], count: levels)
    }

    /// Appends the song's ids and duration.
    mutating func consume(_ song: SongValues) {
        for level in offsets.indices {
            ids[level].append(contentsOf: song.ids(of: level))
            offsets[level].append(Int32(ids[level].count))
        }
        durations.append(song.duration)
    }
}

/// Feeds a ``GroupConsumer`` from ``TagColumn``s, as a ``GroupScan`` over every song would.
enum ColumnWalk {
    /// Hands every song's ids of `columns` (all of one build state, as the cache returns them)
    /// and duration to `consumer`.
    static func run<Consumer: GroupConsumer>(_ columns: [TagColumn], durations: [Double], into consumer: inout Consumer)
    {
        let songs = columns.first?.songs ?? 0
        let levels = columns.count
        var ids = Scratch<Int32>()
        var ends = Scratch<Int>()
        var previous = Scratch<Int32>()
        var previousEnds = Scratch<Int>()
        var offsets = Scratch<UnsafeBufferPointer<Int32>>()
        var values = Scratch<UnsafeBufferPointer<Int32>>()
        defer {
            ids.free()
            ends.free()
            previous.free()
            previousEnds.free()
            offsets.free()
            values.free()
        }
        for column in columns {
            ends.append(0)
            previousEnds.append(0)
            offsets.append(column.offsets)
            values.append(column.ids)
        }
        durations.withUnsafeBufferPointer { durations in
            for song in 0..<songs {
                ids.count = 0
                for level in 0..<levels {
                    let start = Int(offsets[level][song]), end = Int(offsets[level][song + 1])
                    for index in start..<end { ids.append(values[level][index]) }
                    ends[level] = ids.count
                }
                // What GroupScan reports: the same ids as the previous song, level by level.
                var repeats = song > 0 && previous.count == ids.count
                for level in 0..<levels where repeats && previousEnds[level] != ends[level] { repeats = false }
                for index in 0..<ids.count where repeats && previous[index] != ids[index] { repeats = false }
                if !repeats {
                    previous.count = 0
                    for index in 0..<ids.count { previous.append(ids[index]) }
                    for level in 0..<levels { previousEnds[level] = ends[level] }
                }
                consumer.consume(
                    SongValues(
                        ids: ids.buffer, ends: ends.buffer, repeatsPrevious: repeats,
                        duration: durations[song]))
            }
        }
    }
}
