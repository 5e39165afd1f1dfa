import MPDProtocol
import NIOCore
import Testing

@testable import Server

@Suite("Song blocks of a one-read answer")
struct SongBlocksTests {
    /// `count` blocks of a few lines each, numbered, and where each one lies.
    static func blocks(_ count: Int) -> (SongBlocks, [Range<Int>]) {
        var blocks = SongBlocks()
        var ranges: [Range<Int>] = []
        for number in 0..<count {
            let start = blocks.count
            blocks.write { lines in
                lines.append("file", "song \(number).mp3")
                lines.append("Title", String(repeating: "x", count: number % 97))
            }
            ranges.append(start..<blocks.count)
        }
        return (blocks, ranges)
    }

    static func text(_ response: ResponseBuffer) -> String {
        String(decoding: response.bytes.readableBytesView, as: UTF8.self)
    }

    @Test func eachBlockComesBackWholeFromWhicheverChunkHoldsIt() {
        // Enough blocks for several chunks.
        let (blocks, ranges) = Self.blocks(3000)
        #expect(blocks.count > 3 * SongBlocks.chunkBytes)
        for number in [0, 1, 299, 1500, 2999] {
            var response = ResponseBuffer()
            blocks.copy(ranges[number], to: &response)
            let title = String(repeating: "x", count: number % 97)
            #expect(Self.text(response) == "file: song \(number).mp3\nTitle: \(title)\n")
        }
    }

    @Test func aRunOfBlocksSpanningChunksComesBackInOrder() {
        let (blocks, ranges) = Self.blocks(3000)
        var whole = ResponseBuffer()
        blocks.copy(0..<blocks.count, to: &whole)
        var oneByOne = ResponseBuffer()
        for range in ranges { blocks.copy(range, to: &oneByOne) }
        #expect(Self.text(whole) == Self.text(oneByOne))
        #expect(whole.count == blocks.count)
        // Blocks in reverse: the order the ranges are given in, not the order written.
        var reversed = ResponseBuffer()
        for range in ranges.suffix(2).reversed() { blocks.copy(range, to: &reversed) }
        #expect(Self.text(reversed).hasPrefix("file: song 2999.mp3\n"))
    }
}
