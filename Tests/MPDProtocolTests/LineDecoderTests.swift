import MPDProtocol
import NIOCore
import Testing

@Suite("Line decoder")
struct LineDecoderTests {
    @Test("lines survive any split of the input and lose trailing blanks")
    func dripFed() throws {
        let input = "ping\nstatus\r\nfind artist x \t \n\n  \nsearch any \"a b\"\n"
        let expected = ["ping", "status", "find artist x", "", "", "search any \"a b\""]
        let bytes = Array(input.utf8)
        // Every way of cutting the input in two, and one byte at a time: appended to one
        // buffer as a connection's reads are, the lines come out the same.
        var splits = (0...bytes.count).map { [bytes[..<$0], bytes[$0...]] }
        splits.append(bytes.map { [$0][...] })
        for pieces in splits {
            var decoder = LineDecoder()
            var buffer = ByteBuffer()
            var lines: [String] = []
            for piece in pieces {
                buffer.writeBytes(piece)
                while let line = try decoder.nextLine(&buffer) { lines.append(String(buffer: line)) }
            }
            #expect(lines == expected)
            #expect(buffer.readableBytes == 0)
        }
    }

    @Test("a line of exactly 8192 bytes with its newline is accepted")
    func longestLine() throws {
        var decoder = LineDecoder()
        var buffer = ByteBuffer(string: String(repeating: "a", count: 8191) + "\n")
        let line = try decoder.nextLine(&buffer)
        #expect(line?.readableBytes == 8191)
        #expect(buffer.readableBytes == 0)
    }

    @Test("one byte more is refused, whether or not the newline has arrived")
    func overlongLine() {
        var decoder = LineDecoder()
        var complete = ByteBuffer(string: String(repeating: "a", count: 8192) + "\n")
        #expect(throws: LineDecoder.LineTooLong.self) { try decoder.nextLine(&complete) }

        var partialDecoder = LineDecoder()
        var partial = ByteBuffer(string: String(repeating: "a", count: 8192))
        #expect(throws: LineDecoder.LineTooLong.self) { try partialDecoder.nextLine(&partial) }
    }

    @Test("a partial line waits for its newline")
    func partial() throws {
        var decoder = LineDecoder()
        var buffer = ByteBuffer(string: "pin")
        #expect(try decoder.nextLine(&buffer) == nil)
        buffer.writeString("g\n")
        #expect(try decoder.nextLine(&buffer) == ByteBuffer(string: "ping"))
    }

    @Test("binary bytes pass through to the framer unchanged")
    func binary() throws {
        var decoder = LineDecoder()
        var buffer = ByteBuffer(bytes: [0xFF, 0x00, 0x80, 0x0A])
        #expect(try decoder.nextLine(&buffer) == ByteBuffer(bytes: [0xFF, 0x00, 0x80]))
    }
}
