/// The encoded stream's recent bytes, in a ring of fixed size that the output thread fills and
/// every listener reads at its own position.
///
/// This is how each listener has its own bounded queue without the output thread doing any
/// work per listener: the output thread copies each encoded packet in once (no allocation, a
/// `memcpy`), and a listener's queue is the span between its read position and the write
/// position. A listener whose span grows beyond ``limit`` (it stopped reading, or reads slower
/// than the stream plays) is dropped; the others, and the output thread, never wait for it.
/// Positions count bytes since the ring was made, so they never wrap in practice (UInt64).
///
/// Not thread-safe: ``HTTPStreamHub`` holds it behind its lock.
package struct EncodedRing {
    /// What a listener gets from ``read(from:maxCount:into:)``.
    package enum ReadResult: Equatable {
        /// This many bytes were copied (0: nothing new yet).
        case copied(Int)
        /// The listener is more than ``limit`` bytes behind: drop it.
        case tooFarBehind
    }

    /// The ring's size in bytes.
    package let capacity: Int
    /// How far behind the write position a listener may fall before it is dropped; below
    /// ``capacity`` so that what a listener is owed has not been overwritten yet.
    package let limit: Int
    /// Bytes written since the ring was made: the position a newly joined listener starts at.
    package private(set) var written: UInt64 = 0
    private let storage: UnsafeMutableRawBufferPointer

    /// Allocates the ring. Free it with ``deallocate()``.
    package init(capacity: Int, limit: Int) {
        precondition(limit > 0 && limit <= capacity)
        self.capacity = capacity
        self.limit = limit
        storage = .allocate(byteCount: capacity, alignment: 16)
    }

    /// Frees the storage; the ring must not be used afterwards.
    package func deallocate() { storage.deallocate() }

    /// Appends `bytes` (at most ``capacity``, the tail if more) at the write position.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard var base = bytes.baseAddress, !bytes.isEmpty else { return }
        var count = bytes.count
        if count > capacity {
            written &+= UInt64(count - capacity)
            base += count - capacity
            count = capacity
        }
        let start = Int(written % UInt64(capacity))
        let first = min(count, capacity - start)
        storage.baseAddress!.advanced(by: start).copyMemory(from: base, byteCount: first)
        if first < count {
            storage.baseAddress!.copyMemory(from: base + first, byteCount: count - first)
        }
        written &+= UInt64(count)
    }

    /// Copies up to `maxCount` bytes from `position` on by calling `sink` with at most two
    /// contiguous pieces, unless the listener at `position` is too far behind.
    package func read(
        from position: UInt64, maxCount: Int, into sink: (UnsafeRawBufferPointer) -> Void
    ) -> ReadResult {
        let lag = written &- position
        guard lag <= UInt64(limit) else { return .tooFarBehind }
        let count = min(Int(lag), maxCount)
        guard count > 0 else { return .copied(0) }
        let start = Int(position % UInt64(capacity))
        let first = min(count, capacity - start)
        sink(UnsafeRawBufferPointer(rebasing: storage[start..<(start + first)]))
        if first < count {
            sink(UnsafeRawBufferPointer(rebasing: storage[0..<(count - first)]))
        }
        return .copied(count)
    }
}
