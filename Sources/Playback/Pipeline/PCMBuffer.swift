/// What one chunk of the PCM buffer holds besides its bytes.
struct ChunkInfo: Sendable {
    /// The track the samples belong to (``PipelineTrack/token``).
    var token: Int
    /// The position in the song of the chunk's first frame, in seconds.
    var time: Double
    /// How many bytes of the chunk are filled.
    var length: Int
    /// The layout of the samples.
    var format: PCMFormat
    /// The decoder's bit rate when it produced the chunk (kbit/s).
    var bitrate: Int
    /// An empty chunk that says the stream ends here: nothing follows until a new `play`.
    var isEnd: Bool
    /// A stream said what it is while this chunk was decoded: the serial of that
    /// ``StreamDescription`` in ``NowPlaying``, which the player hears when the chunk is
    /// played, as MPD's player applies a chunk's tag; 0 for none.
    var described: UInt32 = 0

    static let empty = ChunkInfo(token: 0, time: 0, length: 0, format: .cd, bitrate: 0, isEnd: false)
}

/// The bounded buffer between the decoder thread and the output threads (MPD's MusicPipe over
/// a MusicBuffer): a ring of preallocated, fixed-size chunks.
///
/// One producer (the decoder) fills chunks in order; every consumer (an output) reads every
/// chunk in order at its own pace; a chunk is reused once all consumers are past it. Nothing
/// allocates after `init`. The buffer does no locking of its own: it is part of the
/// ``PipelineTransport``, called with the transport's lock held, and the threads wait on that
/// lock's condition, so a consumer can wait for "a chunk, or a pause, or a flush" at once.
final class PCMBuffer {
    /// Bytes per chunk.
    let chunkSize: Int
    /// Number of chunks.
    let capacity: Int
    /// How many chunks have been committed since the start (monotonic).
    private(set) var written = 0

    private let storage: UnsafeMutableRawPointer
    private let infos: UnsafeMutablePointer<ChunkInfo>
    private let readers: UnsafeMutablePointer<Int>
    private let active: UnsafeMutablePointer<Bool>
    private let maximumReaders: Int
    /// Where a reader registered while no other is starts: the chunk the last one to leave
    /// had not yet played (nothing is written without a reader, so it is still there).
    private var resumePosition = 0

    /// Creates a buffer of `totalBytes` (MPD's `audio_buffer_size`) in chunks of `chunkSize`.
    init(totalBytes: Int, chunkSize: Int = 4096, maximumReaders: Int = 16) {
        self.chunkSize = chunkSize
        capacity = max(4, totalBytes / chunkSize)
        self.maximumReaders = maximumReaders
        storage = UnsafeMutableRawPointer.allocate(byteCount: capacity * chunkSize, alignment: 16)
        infos = UnsafeMutablePointer<ChunkInfo>.allocate(capacity: capacity)
        infos.initialize(repeating: .empty, count: capacity)
        readers = UnsafeMutablePointer<Int>.allocate(capacity: maximumReaders)
        readers.initialize(repeating: 0, count: maximumReaders)
        active = UnsafeMutablePointer<Bool>.allocate(capacity: maximumReaders)
        active.initialize(repeating: false, count: maximumReaders)
    }

    deinit {
        storage.deallocate()
        infos.deinitialize(count: capacity)
        infos.deallocate()
        readers.deallocate()
        active.deallocate()
    }

    /// Registers a consumer where the others are, not where the decoder is, as MPD's outputs
    /// all read one pipe: beside other consumers, at the one furthest ahead (an output enabled
    /// while another plays joins it in time, rather than the decoder's seconds ahead; never
    /// behind any, since a consumer that becomes the reference would report a song that has
    /// already started as starting again); alone, where the last one left (an output enabled
    /// again after the only one was disabled during a pause resumes from the paused chunk).
    /// Returns its id.
    func addReader() -> Int? {
        guard let id = (0..<maximumReaders).first(where: { !active[$0] }) else { return nil }
        let start = hasReaders ? furthestReader : min(resumePosition, written)
        active[id] = true
        readers[id] = start
        return id
    }

    /// Unregisters a consumer; the producer no longer waits for it.
    func removeReader(_ id: Int) {
        active[id] = false
        if !hasReaders { resumePosition = readers[id] }
    }

    /// The index of the chunk the consumer reads next (counted as ``written`` counts).
    func position(reader id: Int) -> Int { readers[id] }

    /// Whether the consumer has a chunk to read.
    func hasChunk(reader id: Int) -> Bool { readers[id] < written }

    /// The consumer's next chunk. - Precondition: ``hasChunk(reader:)``.
    func chunk(reader id: Int) -> (bytes: UnsafeMutableRawBufferPointer, info: ChunkInfo) {
        let slot = readers[id] % capacity
        let info = infos[slot]
        return (UnsafeMutableRawBufferPointer(start: storage + slot * chunkSize, count: info.length), info)
    }

    /// The consumer is done with its current chunk.
    func release(reader id: Int) {
        if readers[id] < written { readers[id] += 1 }
    }

    /// Whether a chunk is free for the producer. Never without a consumer: nobody would hear
    /// it (a partition without outputs, every output disabled), so the producer waits rather
    /// than decode songs into the void.
    var hasRoom: Bool { hasReaders && written - slowestReader() < capacity }

    /// Whether any consumer is registered.
    var hasReaders: Bool { (0..<maximumReaders).contains { active[$0] } }

    /// Where the producer writes its next chunk. - Precondition: ``hasRoom``.
    func space() -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: storage + (written % capacity) * chunkSize, count: chunkSize)
    }

    /// Publishes the chunk at ``space()``.
    func commit(_ info: ChunkInfo) {
        infos[written % capacity] = info
        written += 1
    }

    /// How many chunks are buffered ahead of the slowest consumer.
    var filled: Int { written - slowestReader() }

    /// How many chunks the producer could fill now.
    var freeChunks: Int { capacity - filled }

    /// Drops everything buffered: every consumer jumps to the write position.
    func dropAll() {
        for id in 0..<maximumReaders where active[id] { readers[id] = written }
        resumePosition = written
    }

    /// Takes back the chunks from `index` on, if no consumer has reached them yet.
    /// - Returns: whether it could.
    func truncate(to index: Int) -> Bool {
        // A consumer at `index` may be reading that very chunk right now.
        for id in 0..<maximumReaders where active[id] && readers[id] >= index { return false }
        written = min(written, index)
        resumePosition = min(resumePosition, written)
        return true
    }

    /// The position of the consumer furthest ahead (the chunk it reads or waits for), or
    /// ``written`` when there is none.
    var furthestReader: Int {
        var furthest: Int?
        for id in 0..<maximumReaders where active[id] { furthest = max(furthest ?? readers[id], readers[id]) }
        return furthest ?? written
    }

    /// What chunk `index` holds. - Precondition: it is still in the ring (`written - capacity
    /// ..< written`).
    func info(at index: Int) -> ChunkInfo { infos[index % capacity] }

    private func slowestReader() -> Int {
        var slowest = written
        for id in 0..<maximumReaders where active[id] { slowest = min(slowest, readers[id]) }
        return slowest
    }
}
