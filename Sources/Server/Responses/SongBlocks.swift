import MPDProtocol
import MediaLibrary

/// The song blocks of a one-read `find` or `search` (``Library/writeMatchingSongs``), held until
/// they are sent in output order: response buffers of about ``chunkBytes`` each, addressed as
/// one run of bytes.
///
/// Chunks rather than one buffer: glibc serves a buffer of megabytes with a mapping of its own,
/// and once it is freed raises its threshold for those to that size, after which the next such
/// buffer comes from the heap and stays resident when freed (2 MiB more resident memory after a
/// few broad searches at 100,000 songs). Chunks of 64 KiB come from the heap from the start and
/// are reused from one answer to the next.
struct SongBlocks: RecordSink {
    /// When a chunk is full: a song block starts a new chunk past this size, so that a chunk
    /// stays within its 64 KiB of capacity unless one block is larger than 4 KiB.
    static let chunkBytes = 60 * 1024

    private var chunks: [ResponseBuffer] = []
    /// Where each chunk starts in the run of bytes.
    private var starts: [Int] = []
    /// How many bytes are held: the end of the run.
    private(set) var count = 0

    /// Writes one song block (or any lines) through `write`, whole into one chunk.
    mutating func write(_ write: (inout ResponseBuffer) -> Void) {
        if chunks.isEmpty || chunks[chunks.count - 1].count >= Self.chunkBytes {
            // Allocated whole: grown from a few hundred bytes, each chunk was copied eight times.
            chunks.append(ResponseBuffer(capacity: 64 * 1024))
            starts.append(count)
        }
        let before = chunks[chunks.count - 1].count
        write(&chunks[chunks.count - 1])
        count += chunks[chunks.count - 1].count - before
    }

    /// Adds one field, as a block of its own.
    mutating func append(_ key: String, bytes value: UnsafeRawBufferPointer) {
        write { $0.append(key, bytes: value) }
    }

    /// Appends the bytes `range` of the run to `response`, from as many chunks as it spans.
    func copy(_ range: Range<Int>, to response: inout ResponseBuffer) {
        // The last chunk starting at or before the range: a binary search of the starts.
        var low = 0
        var high = starts.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if starts[middle] <= range.lowerBound { low = middle } else { high = middle }
        }
        var offset = range.lowerBound
        while offset < range.upperBound {
            let start = starts[low]
            let end = min(range.upperBound, start + chunks[low].count)
            response.append(contentsOf: chunks[low], range: (offset - start)..<(end - start))
            offset = end
            low += 1
        }
    }
}
