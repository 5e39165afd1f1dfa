import Foundation

/// The byte-wise order MPD's `list` and `sort` use (`strcmp`, `std::map<std::string>`), which
/// is also SQLite's `BINARY` collation and so the order of the `uri` index.
enum ByteOrder {
    /// Whether `a` sorts before `b` by UTF-8 bytes.
    static func precedes(_ a: String, _ b: String) -> Bool {
        // Native strings are contiguous UTF-8: one memcmp, where a generic walk of the two UTF-8
        // views cost a restart of a 100,000-song queue 0.2 s (sorting its URIs).
        let fast = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                precedes(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y))
            }
        }
        return (fast ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Whether the bytes `a` sort before the bytes `b`: a shorter prefix first.
    static func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        let common = min(a.count, b.count)
        let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
        return order != 0 ? order < 0 : a.count < b.count
    }
}
