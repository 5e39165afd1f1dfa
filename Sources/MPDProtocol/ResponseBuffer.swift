package import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Builds the body of a response: `key: value` lines and binary chunks, in MPD's framing.
///
/// The session appends `OK`, `list_OK` or an `ACK` line itself; handlers only write content.
package struct ResponseBuffer: Sendable {
    /// The encoded bytes so far.
    package private(set) var bytes: ByteBuffer

    /// Creates an empty response body with room for `capacity` bytes before it grows.
    package init(allocator: ByteBufferAllocator = ByteBufferAllocator(), capacity: Int = 256) {
        bytes = allocator.buffer(capacity: capacity)
    }

    /// The number of bytes written so far.
    package var count: Int { bytes.readableBytes }

    /// Appends `key: value\n`.
    ///
    /// A line break inside `value` would forge a protocol line, so each one becomes a space, as
    /// MPD's tag sanitiser does for values from files.
    package mutating func append(_ key: String, _ value: String) {
        var value = value
        value.withUTF8 { append(key, bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Appends `key: value\n` with the value given as UTF-8 bytes; line breaks become spaces
    /// as in the `String` version.
    package mutating func append(_ key: String, bytes value: UnsafeRawBufferPointer) {
        var key = key
        // One write per line: song blocks print tens of thousands of lines, and each separate
        // write checks capacity and uniqueness again.
        _ = key.withUTF8 { key in
            bytes.writeWithUnsafeMutableBytes(minimumWritableBytes: key.count + value.count + 3) { line in
                line.copyMemory(from: UnsafeRawBufferPointer(key))
                line[key.count] = UInt8(ascii: ":")
                line[key.count + 1] = UInt8(ascii: " ")
                let text = UnsafeMutableRawBufferPointer(rebasing: line[(key.count + 2)...])
                if let base = value.baseAddress, !value.isEmpty {
                    text.copyMemory(from: value)
                    // Values almost never hold a line break: `memchr` looks for one many bytes
                    // at a time, where the loop below tests each byte.
                    if memchr(base, 0x0A, value.count) != nil || memchr(base, 0x0D, value.count) != nil {
                        for index in value.indices where value[index] == 0x0A || value[index] == 0x0D {
                            text[index] = 0x20
                        }
                    }
                }
                line[key.count + 2 + value.count] = UInt8(ascii: "\n")
                return key.count + value.count + 3
            }
        }
    }

    /// Appends what another buffer holds.
    package mutating func append(contentsOf other: ResponseBuffer) {
        var other = other.bytes
        bytes.writeBuffer(&other)
    }

    /// Appends the bytes `range` of what another buffer holds (offsets from its start).
    package mutating func append(contentsOf other: ResponseBuffer, range: Range<Int>) {
        _ = other.bytes.withUnsafeReadableBytes { bytes.writeBytes(UnsafeRawBufferPointer(rebasing: $0[range])) }
    }

    /// Appends `key: value\n` for an integer value.
    package mutating func append(_ key: String, _ value: some BinaryInteger) {
        guard let number = Int64(exactly: value) else { return append(key, String(value)) }
        // Digits written in place, not through a String: a queue listing prints two or three
        // numbers a song.
        withUnsafeTemporaryAllocation(byteCount: Self.decimalWidth, alignment: 1) { digits in
            let start = Self.writeDecimal(number, endingAt: digits.count, in: digits)
            append(key, bytes: UnsafeRawBufferPointer(rebasing: digits[start...]))
        }
    }

    /// The most bytes ``writeDecimal(_:endingAt:in:)`` writes: `-9223372036854775808`.
    package static let decimalWidth = 20

    /// Writes `value` in decimal into `buffer` so that it ends just before `end`, and returns
    /// where it starts. `buffer` must have room for ``decimalWidth`` bytes before `end`.
    package static func writeDecimal(_ value: Int64, endingAt end: Int, in buffer: UnsafeMutableRawBufferPointer) -> Int
    {
        var magnitude = value.magnitude
        var start = end
        repeat {
            start -= 1
            buffer[start] = UInt8(truncatingIfNeeded: 0x30 + magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        if value < 0 {
            start -= 1
            buffer[start] = UInt8(ascii: "-")
        }
        return start
    }

    /// Appends a binary chunk: `binary: N\n`, the N bytes, and a newline.
    package mutating func appendBinary(_ chunk: some Collection<UInt8>) {
        bytes.writeString("binary: \(chunk.count)\n")
        bytes.writeBytes(chunk)
        bytes.writeStaticString("\n")
    }

    /// Appends raw, already-formatted bytes.
    package mutating func appendRaw(_ text: String) {
        bytes.writeString(text)
    }

    /// Appends a fixed line, such as `list_OK\n`, straight from the binary's constant bytes.
    package mutating func appendConstant(_ text: StaticString) {
        bytes.writeStaticString(text)
    }

    /// Hands over what was written and starts empty again, for streaming long responses.
    package mutating func take() -> ByteBuffer {
        let taken = bytes
        bytes = ByteBufferAllocator().buffer(capacity: 256)
        return taken
    }
}
