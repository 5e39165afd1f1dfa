import MPDProtocol
import Testing

@Suite("Request framing (MPD's ProcessLine)")
struct RequestFramerTests {
    private func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test("a line not starting with a–z closes silently")
    func malformedFirstByte() {
        var framer = RequestFramer(maximumListSize: 2048)
        for line in ["", " ping", "PLAY", "GET / HTTP/1.1", "1", "\u{FF}x"] {
            #expect(framer.consume(bytes(line), isIdle: false) == .close(.malformedLine))
        }
    }

    @Test("a plain command is executed")
    func plainCommand() {
        var framer = RequestFramer(maximumListSize: 2048)
        #expect(framer.consume(bytes("ping"), isIdle: false) == .execute(bytes("ping")))
    }

    @Test("noidle is handed to the session whether idle or not")
    func noidle() {
        var framer = RequestFramer(maximumListSize: 2048)
        #expect(framer.consume(bytes("noidle"), isIdle: false) == .noidle)
        #expect(framer.consume(bytes("noidle"), isIdle: true) == .noidle)
        #expect(framer.consume(bytes("noidle x"), isIdle: true) == .close(.commandDuringIdle))
    }

    @Test("any other line while idle closes the connection")
    func commandDuringIdle() {
        var framer = RequestFramer(maximumListSize: 2048)
        #expect(framer.consume(bytes("status"), isIdle: true) == .close(.commandDuringIdle))
        #expect(framer.consume(bytes("idle"), isIdle: true) == .close(.commandDuringIdle))
    }

    @Test("command lists collect lines and run them at the end")
    func commandList() {
        var framer = RequestFramer(maximumListSize: 2048)
        #expect(framer.consume(bytes("command_list_ok_begin"), isIdle: false) == .collect)
        #expect(framer.isCollectingList)
        #expect(framer.consume(bytes("ping"), isIdle: false) == .collect)
        #expect(framer.consume(bytes("command_list_begin"), isIdle: false) == .collect)
        #expect(
            framer.consume(bytes("command_list_end"), isIdle: false)
                == .executeList([bytes("ping"), bytes("command_list_begin")], okMode: true)
        )
        #expect(!framer.isCollectingList)
        #expect(framer.consume(bytes("command_list_begin"), isIdle: false) == .collect)
        #expect(framer.consume(bytes("command_list_end"), isIdle: false) == .executeList([], okMode: false))
    }

    @Test("command_list_end outside a list is an ordinary (unknown) command")
    func endOutsideList() {
        var framer = RequestFramer(maximumListSize: 2048)
        #expect(framer.consume(bytes("command_list_end"), isIdle: false) == .execute(bytes("command_list_end")))
        #expect(framer.consume(bytes("command_list_begin x"), isIdle: false) == .execute(bytes("command_list_begin x")))
    }

    @Test("idle or noidle inside a list closes; idle with arguments is collected")
    func idleInList() {
        var framer = RequestFramer(maximumListSize: 2048)
        _ = framer.consume(bytes("command_list_begin"), isIdle: false)
        #expect(framer.consume(bytes("idle player"), isIdle: false) == .collect)
        #expect(framer.consume(bytes("idle"), isIdle: false) == .close(.idleInCommandList))
        var other = RequestFramer(maximumListSize: 2048)
        _ = other.consume(bytes("command_list_begin"), isIdle: false)
        #expect(other.consume(bytes("noidle"), isIdle: false) == .close(.idleInCommandList))
    }

    @Test("a list larger than the limit closes; each line counts its length plus one")
    func listSizeLimit() {
        var framer = RequestFramer(maximumListSize: 10)
        _ = framer.consume(bytes("command_list_begin"), isIdle: false)
        #expect(framer.consume(bytes("ping"), isIdle: false) == .collect)  // 5
        #expect(framer.consume(bytes("ping"), isIdle: false) == .collect)  // 10
        #expect(framer.consume(bytes("p"), isIdle: false) == .close(.commandListTooLarge))  // 12
    }

    @Test("malformed lines inside a list close too")
    func malformedInList() {
        var framer = RequestFramer(maximumListSize: 2048)
        _ = framer.consume(bytes("command_list_begin"), isIdle: false)
        #expect(framer.consume(bytes("Ping"), isIdle: false) == .close(.malformedLine))
    }
}
