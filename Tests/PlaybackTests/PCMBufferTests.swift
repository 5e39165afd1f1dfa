import Testing

@testable import Playback

/// Where a new reader of the PCM buffer starts (``PCMBuffer/addReader()``).
@Suite struct PCMBufferTests {
    func commit(_ buffer: PCMBuffer, _ count: Int) {
        for _ in 0..<count {
            buffer.commit(ChunkInfo(token: 1, time: 0, length: 4096, format: .cd, bitrate: 0, isEnd: false))
        }
    }

    func advance(_ buffer: PCMBuffer, _ reader: Int, by count: Int) {
        for _ in 0..<count { buffer.release(reader: reader) }
    }

    /// A buffer of sixteen chunks holding ten, and two readers that have read `behind` and
    /// `ahead` of them.
    func twoReaders(behind: Int, ahead: Int) throws -> (buffer: PCMBuffer, behind: Int, ahead: Int) {
        let buffer = PCMBuffer(totalBytes: 16 * 4096)
        let slow = try #require(buffer.addReader())
        let fast = try #require(buffer.addReader())
        commit(buffer, 10)
        advance(buffer, slow, by: behind)
        advance(buffer, fast, by: ahead)
        return (buffer, slow, fast)
    }

    /// Never behind another reader: one that became the reference there would report a song
    /// the others have passed as starting again.
    @Test func aReaderBesideOthersStartsAtTheFurthest() throws {
        let (buffer, _, fast) = try twoReaders(behind: 3, ahead: 6)
        let joining = try #require(buffer.addReader())
        #expect(buffer.position(reader: joining) == 6)
        buffer.removeReader(fast)
        buffer.removeReader(joining)
        let next = try #require(buffer.addReader())
        #expect(buffer.position(reader: next) == 3)  // `slow` is the only one left
    }

    @Test func aReaderAloneStartsWhereTheLastOneLeft() throws {
        let (buffer, first, second) = try twoReaders(behind: 2, ahead: 6)
        buffer.removeReader(first)
        buffer.removeReader(second)
        #expect(!buffer.hasRoom)  // nothing is written over what the readers left
        let back = try #require(buffer.addReader())
        #expect(buffer.position(reader: back) == 6)
    }

    @Test func aDropOrATruncationMovesTheStartWithIt() throws {
        let buffer = PCMBuffer(totalBytes: 16 * 4096)
        let reader = try #require(buffer.addReader())
        commit(buffer, 10)
        advance(buffer, reader, by: 8)
        buffer.removeReader(reader)
        #expect(buffer.truncate(to: 5))
        let afterTruncation = try #require(buffer.addReader())
        #expect(buffer.position(reader: afterTruncation) == 5)
        buffer.removeReader(afterTruncation)
        commit(buffer, 3)
        buffer.dropAll()
        let afterDrop = try #require(buffer.addReader())
        #expect(buffer.position(reader: afterDrop) == 8)
    }
}
