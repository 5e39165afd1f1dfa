/// A song's tags in one buffer, the way the library stores them (the `tags` column of
/// `songTagList`): for each value, in order, one byte holding the ``TagType`` raw value, the
/// length of the UTF-8 bytes as an unsigned LEB128 varint, and the bytes.
///
/// A queued song keeps its tags for as long as it is queued. As an array of ``TagValue``s they
/// took an array and a string per long value: 540–590 bytes a queued song at 100,000 songs,
/// against MPD's 414 (docs/benchmarks.md). A song read from the library holds a copy of its
/// stored blob instead, one allocation (364 bytes a queued song), and its block is printed
/// from those bytes.
package struct PackedTagList: Sendable, Equatable {
    private var bytes: [UInt8]

    /// No tags.
    package init() {
        bytes = []
    }

    /// The tags `tags`, in their order.
    package init(_ tags: [TagValue]) {
        bytes = Self.encode(tags)
    }

    /// A copy of a blob in this layout. Values whose tag number this build does not know are
    /// left out, and a truncated blob ends at the damaged value, as ``forEach(_:)`` reads it.
    package init(copying blob: UnsafeRawBufferPointer) {
        var known = 0
        var whole = true
        Self.forEachEntry(in: blob) { number, entry, _ in
            if TagType(rawValue: number) == nil { whole = false } else { known += entry.count }
        }
        guard whole, known == blob.count else {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(known)
            Self.forEachEntry(in: blob) { number, entry, _ in
                if TagType(rawValue: number) != nil { bytes.append(contentsOf: entry) }
            }
            self.bytes = bytes
            return
        }
        bytes = Array(blob)
    }

    /// Whether there are no tags.
    package var isEmpty: Bool { bytes.isEmpty }

    /// The tags, decoded.
    package var values: [TagValue] {
        var count = 0
        forEach { _, _ in count += 1 }
        var tags: [TagValue] = []
        tags.reserveCapacity(count)
        forEach { type, value in tags.append(TagValue(type, String(decoding: value, as: UTF8.self))) }
        return tags
    }

    /// Calls `body` with each value's type and UTF-8 bytes, in order, without copying.
    package func forEach(_ body: (TagType, UnsafeRawBufferPointer) -> Void) {
        bytes.withUnsafeBytes { blob in
            Self.forEachEntry(in: blob) { number, _, value in
                if let type = TagType(rawValue: number) { body(type, value) }
            }
        }
    }

    /// The first value of `type`, if there is one.
    package func first(_ type: TagType) -> String? {
        var found: String?
        forEach { candidate, value in
            if found == nil, candidate == type { found = String(decoding: value, as: UTF8.self) }
        }
        return found
    }

    /// The blob for `tags`, in their order.
    package static func encode(_ tags: [TagValue]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(tags.reduce(0) { $0 + $1.value.utf8.count + 2 })
        for tag in tags {
            bytes.append(UInt8(tag.type.rawValue))
            var length = tag.value.utf8.count
            while length >= 0x80 {
                bytes.append(UInt8(length & 0x7F) | 0x80)
                length >>= 7
            }
            bytes.append(UInt8(length))
            bytes.append(contentsOf: tag.value.utf8)
        }
        return bytes
    }

    /// Calls `body` with each value's tag number, whole encoded entry and value bytes, in
    /// stored order, without copying. A truncated blob ends the walk at the damaged value.
    ///
    /// Inlinable: the library's whole-library groupings call it for every song.
    @inlinable
    package static func forEachEntry(
        in blob: UnsafeRawBufferPointer,
        _ body: (_ tag: Int, _ entry: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Void
    ) {
        guard var cursor = blob.baseAddress else { return }
        let end = cursor + blob.count
        while cursor < end {
            let start = cursor
            let tag = Int(cursor.load(as: UInt8.self))
            cursor += 1
            var length = 0
            var shift = 0
            while true {
                guard cursor < end, shift < 56 else { return }
                let byte = cursor.load(as: UInt8.self)
                cursor += 1
                length |= Int(byte & 0x7F) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            guard length <= end - cursor else { return }
            body(
                tag, UnsafeRawBufferPointer(start: start, count: cursor + length - start),
                UnsafeRawBufferPointer(start: cursor, count: length)
            )
            cursor += length
        }
    }
}
