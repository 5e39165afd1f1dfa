import Foundation
import MusicModel

/// A song's tags packed into one blob: the `tags` column of `songTagList`.
///
/// `songTag` keeps one row per value, which filters need (its indexes and the trigram index),
/// but a song's block then costs a seek per value, and `list`/`count … group` a join per song.
/// The same values packed per song are read with one row: printing a song is one seek, and a
/// whole-library grouping is one sequential scan of a narrow table.
///
/// Layout, for each value in stored order: one byte, the ``TagType`` raw value; the length of
/// the UTF-8 bytes as an unsigned LEB128 varint; the bytes.
enum PackedTags {
    /// The blob for `tags`, in their order.
    static func encode(_ tags: [TagValue]) -> Data {
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
        return Data(bytes)
    }

    /// Calls `body` with each value's tag number and bytes, in stored order, without copying.
    /// A truncated blob ends the walk at the damaged value.
    @inline(__always)
    static func forEach(in blob: UnsafeRawBufferPointer, _ body: (Int, UnsafeRawBufferPointer) -> Void) {
        forEachEntry(in: blob) { tag, _, value in body(tag, value) }
    }

    /// Calls `body` with each value's tag number, whole encoded entry and value bytes, in
    /// stored order, without copying. A truncated blob ends the walk at the damaged value.
    @inline(__always)
    static func forEachEntry(
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

    /// The tags of a blob, in stored order; unknown tag numbers are skipped.
    static func decode(_ blob: UnsafeRawBufferPointer) -> [TagValue] {
        // Sized first: grown by appending, the array of a song with 9 to 15 values would hold
        // room for 16, and a queued song keeps its array for as long as it is queued.
        var count = 0
        forEach(in: blob) { _, _ in count += 1 }
        var tags: [TagValue] = []
        tags.reserveCapacity(count)
        forEach(in: blob) { number, value in
            if let type = TagType(rawValue: number) {
                tags.append(TagValue(type, String(decoding: value, as: UTF8.self)))
            }
        }
        return tags
    }
}
