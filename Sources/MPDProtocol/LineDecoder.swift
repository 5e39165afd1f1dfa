package import NIOCore

/// Splits the byte stream from a client into command lines, as MPD's input buffer does.
///
/// MPD reads into a fixed 8192-byte buffer: a line, newline included, must fit in it, or the
/// connection is closed without an answer. Each line loses its trailing bytes `<= 0x20`, so
/// `\r\n` endings work.
package struct LineDecoder: ByteToMessageDecoder, Sendable {
    package typealias InboundOut = ByteBuffer

    /// The longest line accepted, including its newline.
    package static let maximumLineLength = 8192

    /// Thrown when more than ``maximumLineLength`` bytes arrive without a newline.
    package struct LineTooLong: Error, Equatable {}

    private var scannedBytes = 0

    /// Creates a decoder.
    package init() {}

    package mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let line = try nextLine(&buffer) else { return .needMoreData }
        context.fireChannelRead(Self.wrapInboundOut(line))
        return .continue
    }

    package mutating func decodeLast(
        context: ChannelHandlerContext,
        buffer: inout ByteBuffer,
        seenEOF: Bool
    ) throws -> DecodingState {
        // A partial last line is never executed: MPD only runs complete lines.
        try decode(context: context, buffer: &buffer)
    }

    /// Takes the next complete line out of `buffer`, without the newline and trailing blanks.
    /// - Returns: the line, or `nil` when no newline has arrived yet.
    /// - Throws: ``LineTooLong`` when the line cannot fit in MPD's input buffer.
    package mutating func nextLine(_ buffer: inout ByteBuffer) throws(LineTooLong) -> ByteBuffer? {
        let view = buffer.readableBytesView
        let searchStart = view.startIndex + scannedBytes
        guard let newline = view[searchStart...].firstIndex(of: UInt8(ascii: "\n")) else {
            scannedBytes = view.count
            if view.count >= Self.maximumLineLength { throw LineTooLong() }
            return nil
        }
        let length = newline - view.startIndex
        scannedBytes = 0
        if length + 1 > Self.maximumLineLength { throw LineTooLong() }
        var end = length
        while end > 0, view[view.startIndex + end - 1] <= 0x20 { end -= 1 }
        let line = buffer.getSlice(at: buffer.readerIndex, length: end)!
        buffer.moveReaderIndex(forwardBy: length + 1)
        return line
    }
}
