import TestSupport
import Testing

/// The playback options through ``TestClient``, in command lists as clients send them.
@Suite struct PlaybackOptionCommandsTests {
    @Test func aListStopsAtItsFirstErrorWhichNamesItsIndex() async throws {
        let client = try await TestClient(server: TestServer())
        let response = try await client.send(
            "command_list_ok_begin", "repeat 1", "consume 1", "random x", "single 1", "command_list_end")
        #expect(response.lines == ["list_OK", "list_OK", "ACK [2@2] {random} Boolean (0/1) expected: x"])
        // What ran before the error stays done; nothing after it ran.
        let status = try await client.send("status").lines
        #expect(Array(status.prefix(4)) == ["repeat: 1", "random: 0", "single: 0", "consume: 1"])
    }

    @Test func crossfadeAndMixRampShowInStatus() async throws {
        let client = try await TestClient(server: TestServer())
        #expect(try await client.send("crossfade 3", "mixrampdb -17", "mixrampdelay 2").text == "OK\nOK\nOK\n")
        let status = try await client.send("status").lines
        #expect(status.contains("xfade: 3"))
        #expect(status.contains("mixrampdb: -17"))
        #expect(status.contains("mixrampdelay: 2"))
    }
}
