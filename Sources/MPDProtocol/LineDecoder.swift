package import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// Splits the byte stream from a client into command lines, as MPD's input buffer does.
///
/// MPD reads into a fixed 8192-byte buffer: a line, newline included, must fit in it, or the
/// connection is closed without an answer. Each line loses its trailing bytes `<= 0x20`, so
/// `\r\n` endings work. The bytes are kept by the caller, which appends what arrives to one
/// buffer and takes the lines out of it; the decoder remembers how far it looked for a
/// newline, so a line arriving in pieces is scanned once.
package struct LineDecoder: Sendable {
    /// The longest line accepted, including its newline.
    package static let maximumLineLength = 8192

    /// Thrown when more than ``maximumLineLength`` bytes arrive without a newline.
    package struct LineTooLong: Error, Equatable {}

    private var scannedBytes = 0

    /// Creates a decoder.
    package init() {}

    /// Takes the next complete line out of `buffer`, without the newline and trailing blanks.
    /// - Returns: the line, or `nil` when no newline has arrived yet.
    /// - Throws: ``LineTooLong`` when the line cannot fit in MPD's input buffer.
    package mutating func nextLine(_ buffer: inout ByteBuffer) throws(LineTooLong) -> ByteBuffer? {
        // On the raw bytes, with `memchr`: a command list's thousands of short lines each pass
        // through here, and a `ByteBufferView` search went through a view and an index per byte.
        let scanned = scannedBytes
        let found: (length: Int, end: Int)? = buffer.withUnsafeReadableBytes { bytes in
            guard let base = bytes.baseAddress, bytes.count > scanned,
                let newline = memchr(base + scanned, 0x0A, bytes.count - scanned)
            else { return nil }
            let length = base.distance(to: UnsafeRawPointer(newline))
            var end = length
            while end > 0, bytes[end - 1] <= 0x20 { end -= 1 }
            return (length, end)
        }
        guard let found else {
            scannedBytes = buffer.readableBytes
            if buffer.readableBytes >= Self.maximumLineLength { throw LineTooLong() }
            return nil
        }
        scannedBytes = 0
        if found.length + 1 > Self.maximumLineLength { throw LineTooLong() }
        let line = buffer.getSlice(at: buffer.readerIndex, length: found.end)!
        buffer.moveReaderIndex(forwardBy: found.length + 1)
        return line
    }
}
