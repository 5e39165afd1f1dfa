import Foundation
import GRDB
import MusicModel

/// The per-song work of `list` and `count … group`, in one pass over the packed tags of the
/// matching songs (`songTagList`).
///
/// Measured on 100,000 songs, SQL over `songTag` cannot do this quickly: every way of pairing
/// a song's values of two tags costs an index seek per song (39 ms), and `DISTINCT`/`GROUP
/// BY` a sorter insert per song (47 ms), each more than MPD's whole `list` (34 ms).
/// One sequential read of a narrow row per song is the cheapest access SQLite offers; the
/// values are interned (consecutive songs, usually of one album, mostly repeat the previous
/// song's values, so most cost one byte comparison) and only distinct combinations kept.
struct GroupScan<Consumer: GroupConsumer> {
    /// How many levels.
    let levels: Int
    /// The levels' tags, each followed by its fallbacks (``TagFallback``), outermost level
    /// first, as tag numbers: level `l` is `chains[chainEnds[l - 1]..<chainEnds[l]]`.
    private let chains: [Int]
    private let chainEnds: [Int]
    /// A bit per tag number any chain holds.
    private let wanted: UInt64
    /// Each level's values.
    private(set) var interners: [Interner]
    /// What is done with each song's ids.
    private(set) var consumer: Consumer
    /// The encoded entries of the wanted tags of the last song that differed from the one
    /// before it, and that song's value ids, reused while the next songs repeat them.
    private var previous = ByteScratch()
    // Raw buffers, not arrays: reached through a pointer from SQLite's callback, arrays were
    // retained and released at each access.
    private var ids = Scratch<Int32>()
    private var ends = Scratch<Int>()
    private var started = false

    /// A scan of the levels `tags`, outermost first, feeding `consumer`.
    init(levels tags: [TagType], consumer: Consumer) {
        levels = tags.count
        var chains: [Int] = []
        var ends: [Int] = []
        for tag in tags {
            chains += ([tag] + TagFallback.chain(for: tag)).map(\.rawValue)
            ends.append(chains.count)
        }
        self.chains = chains
        chainEnds = ends
        wanted = chains.reduce(0) { $0 | 1 << UInt64($1) }
        interners = [Interner](repeating: Interner(), count: tags.count)
        self.consumer = consumer
        for _ in tags { self.ends.append(0) }
    }

    /// The SQL visiting (``RowVisitor``) `tags, duration` of the songs matching `condition`
    /// (on `song s`), every song when `nil`; its first parameter is the visitor.
    static func source(_ condition: SQLFragment?) -> SQLFragment {
        // Unfiltered, the function is the only condition (a little cheaper than an aggregate
        // of it); with a filter, the aggregate guarantees it sees only the matching rows.
        guard let condition else {
            return SQLFragment("SELECT count(*) FROM songTagList WHERE mpd_visit(?, tags, duration)")
        }
        return SQLFragment(
            """
            SELECT count(mpd_visit(?, g.tags, g.duration)) FROM songTagList g
            WHERE g.song IN (SELECT s.id FROM song s WHERE \(condition.sql))
            """,
            values: condition.arguments
        )
    }

    /// Feeds the consumer every song matching `condition` (every song when `nil`).
    ///
    /// - Parameter visit: calls ``visit(_:_:)`` on the scan its first argument points to; a
    ///   closure without captures written where `Consumer` is known, so that the call SQLite
    ///   makes per row reaches the specialised code without a closure context or reference
    ///   counting (a closure over the scan's state measured a third slower).
    mutating func run(_ db: Database, _ condition: SQLFragment?, visit: RowVisitor.Function) throws {
        let source = Self.source(condition)
        defer {
            previous.free()
            ids.free()
            ends.free()
        }
        try withUnsafeMutablePointer(to: &self) { scan in
            try RowVisitor.run(
                db, source.sql, arguments: source.arguments, cached: condition == nil,
                visitor: RowVisitor(function: visit, context: UnsafeMutableRawPointer(scan)))
        }
    }

    /// One song: its packed tags and duration (0 when unknown). Computes, per level, the ids
    /// of the values it contributes (its own, else those of the first fallback it has, else
    /// the empty value) and hands them to the consumer.
    @inline(__always)
    mutating func visit(_ blob: UnsafeRawBufferPointer, _ duration: Double) {
        // A song with the same values of the wanted tags as the previous one (the next track
        // of the same album, most often) has the same ids: compare in place.
        var present: UInt64 = 0
        var compared = 0
        var same = started
        PackedTagList.forEachEntry(in: blob) { tag, entry, _ in
            guard tag < 64, wanted & (1 << UInt64(tag)) != 0 else { return }
            present |= 1 << UInt64(tag)
            if same {
                same = previous.holds(entry, at: compared)
                compared += entry.count
            }
        }
        let repeats = same && compared == previous.count
        if !repeats { numberValues(blob, present: present) }
        consumer.consume(SongValues(ids: ids.buffer, ends: ends.buffer, repeatsPrevious: repeats, duration: duration))
    }

    private mutating func numberValues(_ blob: UnsafeRawBufferPointer, present: UInt64) {
        started = true
        previous.count = 0
        PackedTagList.forEachEntry(in: blob) { tag, entry, _ in
            if tag < 64, wanted & (1 << UInt64(tag)) != 0 { previous.append(entry) }
        }
        ids.count = 0
        var chainStart = 0
        for level in 0..<levels {
            let chain = chains[chainStart..<chainEnds[level]]
            chainStart = chainEnds[level]
            if let chosen = chain.first(where: { present & (1 << UInt64($0)) != 0 }) {
                PackedTagList.forEachEntry(in: previous.bytes) { tag, _, value in
                    if tag == chosen { ids.append(interners[level].id(of: value)) }
                }
            } else {
                ids.append(interners[level].id(of: UnsafeRawBufferPointer(start: nil, count: 0)))
            }
            ends[level] = ids.count
        }
    }
}

/// What one song contributes to a ``GroupScan``, valid only during the call that receives it.
struct SongValues {
    /// The value ids of every level, level after level.
    let ids: UnsafeBufferPointer<Int32>
    /// Where each level's ids end in ``ids``.
    let ends: UnsafeBufferPointer<Int>
    /// Whether every level has the same ids as for the previous song.
    let repeatsPrevious: Bool
    /// The song's duration in seconds; 0 when unknown.
    let duration: Double

    /// The ids of `level`.
    func ids(of level: Int) -> UnsafeBufferPointer<Int32> {
        UnsafeBufferPointer(rebasing: ids[(level == 0 ? 0 : ends[level - 1])..<ends[level]])
    }
}

/// What `list` or `count` does with each song of a ``GroupScan``.
protocol GroupConsumer {
    /// Takes one song's value ids.
    mutating func consume(_ song: SongValues)
}

/// A growable buffer of plain values without reference counting, for the per-song loop; its
/// owner frees it.
struct Scratch<Element: BitwiseCopyable> {
    private var base = UnsafeMutablePointer<Element>.allocate(capacity: 16)
    private var capacity = 16
    /// How many elements are in use.
    var count = 0

    /// The elements in use.
    var buffer: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    /// The element at `index`, which must be in use.
    subscript(index: Int) -> Element {
        get { base[index] }
        set { base[index] = newValue }
    }

    /// Appends `element`.
    mutating func append(_ element: Element) {
        if count == capacity {
            let grown = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
            grown.initialize(from: base, count: count)
            base.deallocate()
            base = grown
            capacity *= 2
        }
        (base + count).initialize(to: element)
        count += 1
    }

    /// Releases the memory.
    func free() { base.deallocate() }
}

/// A growable byte buffer without reference counting, for the per-song loop; its owner frees it.
struct ByteScratch {
    private var base = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 1)
    private var capacity = 256
    /// How many bytes are in use.
    var count = 0

    /// The bytes in use.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Appends a copy of `more`.
    mutating func append(_ more: UnsafeRawBufferPointer) {
        guard let source = more.baseAddress else { return }
        if count + more.count > capacity {
            capacity = max(capacity * 2, count + more.count)
            let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
            grown.copyMemory(from: base, byteCount: count)
            base.deallocate()
            base = grown
        }
        (base + count).copyMemory(from: source, byteCount: more.count)
        count += more.count
    }

    /// Whether the bytes at `offset` are those of `other`.
    @inline(__always)
    func holds(_ other: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        guard offset + other.count <= count else { return false }
        return other.isEmpty || memcmp(base + offset, other.baseAddress!, other.count) == 0
    }

    /// Releases the memory.
    func free() { base.deallocate() }
}

/// Numbers the distinct values of one level in the order first seen.
///
/// The values' bytes are kept in one buffer and found again through an open-addressing table
/// of their FNV-1a hashes: a lookup costs no `String`, no allocation and no SipHash, and the
/// byte order is decided on those bytes too. Strings are made only for the values printed.
struct Interner {
    /// The bytes of every value, one after the other.
    private var storage: [UInt8] = []
    /// Where each value (by id) starts in `storage`; the next one's start is its end.
    private var starts: [Int] = [0]
    private var hashes: [UInt64] = []
    /// Ids by hash slot; -1 is empty. Its size is a power of two at least twice the count.
    private var table = [Int32](repeating: -1, count: 64)
    /// The id looked up last, which the next song most often repeats.
    private var lastID: Int32 = -1

    /// How many distinct values.
    var count: Int { hashes.count }

    /// About how many bytes the values and their lookup table hold.
    var footprint: Int { storage.count + 8 * (starts.count + hashes.count) + 4 * table.count }

    /// The id of `bytes` (UTF-8), numbering it if new.
    mutating func id(of bytes: UnsafeRawBufferPointer) -> Int32 {
        if lastID >= 0, equals(lastID, bytes) { return lastID }
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        let mask = table.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while table[slot] >= 0 {
            let candidate = table[slot]
            if hashes[Int(candidate)] == hash, equals(candidate, bytes) {
                lastID = candidate
                return candidate
            }
            slot = (slot + 1) & mask
        }
        let id = Int32(hashes.count)
        storage.append(contentsOf: bytes)
        starts.append(storage.count)
        hashes.append(hash)
        table[slot] = id
        if hashes.count * 2 > table.count { grow() }
        lastID = id
        return id
    }

    /// The value numbered `id`.
    func string(_ id: Int32) -> String {
        String(decoding: storage[starts[Int(id)]..<starts[Int(id) + 1]], as: UTF8.self)
    }

    /// The ids sorted by their values' bytes (`strcmp` order), and the rank of each id there.
    ///
    /// Each value's first eight bytes, big-endian in one integer, decide most comparisons;
    /// ties compare the rest with memcmp.
    func byteOrder() -> (ids: [Int32], ranks: [Int32]) {
        storage.withUnsafeBytes { bytes in
            let keys = (0..<count).map { id -> UInt64 in
                var key: UInt64 = 0
                let start = starts[id]
                let length = min(8, starts[id + 1] - start)
                for offset in 0..<length { key = key << 8 | UInt64(bytes[start + offset]) }
                return key << (8 * UInt64(8 - length))
            }
            let sorted = (0..<Int32(count)).sorted { a, b in
                let x = Int(a), y = Int(b)
                if keys[x] != keys[y] { return keys[x] < keys[y] }
                return ByteOrder.precedes(
                    UnsafeRawBufferPointer(rebasing: bytes[starts[x]..<starts[x + 1]]),
                    UnsafeRawBufferPointer(rebasing: bytes[starts[y]..<starts[y + 1]]))
            }
            var ranks = [Int32](repeating: 0, count: count)
            for (rank, id) in sorted.enumerated() { ranks[Int(id)] = Int32(rank) }
            return (sorted, ranks)
        }
    }

    private func equals(_ id: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let start = starts[Int(id)]
        let length = starts[Int(id) + 1] - start
        guard length == bytes.count else { return false }
        if length == 0 { return true }
        return storage.withUnsafeBytes { memcmp($0.baseAddress! + start, bytes.baseAddress!, length) == 0 }
    }

    private mutating func grow() {
        table = [Int32](repeating: -1, count: table.count * 2)
        let mask = table.count - 1
        for (id, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while table[slot] >= 0 { slot = (slot + 1) & mask }
            table[slot] = Int32(id)
        }
    }
}
