import MPDProtocol
import TestSupport
import Testing

/// `status` and idle as clients see them, through ``TestClient``: the pattern for a command
/// file's tests, with no process and no socket.
@Suite struct StatusCommandsTests {
    @Test func aNewServerIsStoppedWithAnEmptyQueueInMPDsOrder() async throws {
        let client = try await TestClient(server: TestServer())
        let status = try await client.send("status")
        #expect(
            status.lines == [
                "repeat: 0", "random: 0", "single: 0", "consume: 0", "partition: default", "playlist: 1",
                "playlistlength: 0", "mixrampdb: 0", "state: stop", "lastloadedplaylist: ", "OK",
            ])
        #expect(status.isOpen)
    }

    @Test func theVolumeShowsOnlyWithAMixer() async throws {
        let withMixer = try await TestClient(server: TestServer(hasMixer: true))
        #expect(try await withMixer.send("setvol 35").text == "OK\n")
        #expect(try await withMixer.send("status").lines.contains("volume: 35"))
        let without = try await TestClient(server: TestServer())
        #expect(try await without.send("status").lines.allSatisfy { !$0.hasPrefix("volume:") })
    }

    @Test func anotherClientsChangeWakesAnIdleClient() async throws {
        let server = try TestServer()
        let idler = try await TestClient(server: server)
        let changer = try await TestClient(server: server)
        #expect(try await idler.send("idle options").text == "")
        #expect(try await changer.send("repeat 1").text == "OK\n")
        #expect(try await idler.deliverIdleWakes().text == "changed: options\nOK\n")
        #expect(try await idler.send("status").lines.first == "repeat: 1")
    }

    @Test func aLineMayArriveInPieces() async throws {
        let client = try await TestClient(server: TestServer())
        #expect(try await client.send(raw: "pi").bytes.isEmpty)
        #expect(try await client.send(raw: "ng\nping\n").text == "OK\nOK\n")
    }

    @Test func aCommandListMayArriveInPieces() async throws {
        let client = try await TestClient(server: TestServer())
        #expect(try await client.send(raw: "command_list_ok_begin\nping\nrep").bytes.isEmpty)
        #expect(try await client.send(raw: "eat 1\ncommand_list_e").bytes.isEmpty)
        #expect(try await client.send(raw: "nd\nping\n").text == "list_OK\nlist_OK\nOK\nOK\n")
        #expect(try await client.send("status").lines.first == "repeat: 1")
    }

    @Test func theLinesBeforeALineTooLongAreAnsweredFirst() async throws {
        let client = try await TestClient(server: TestServer())
        let response = try await client.send(raw: "ping\nrepeat 1\nping " + String(repeating: "x", count: 8192) + "\n")
        #expect(response.text == "OK\nOK\n")
        #expect(!response.isOpen)
    }

    @Test func aLineLongerThanMPDsBufferClosesUnanswered() async throws {
        let client = try await TestClient(server: TestServer())
        let response = try await client.send("ping " + String(repeating: "x", count: 8192))
        #expect(response.bytes.isEmpty)
        #expect(!response.isOpen)
    }
}
