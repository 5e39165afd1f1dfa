import MPDProtocol
import TestSupport
import Testing

/// `update` and the database commands on an empty library, through ``TestClient``.
@Suite struct UpdateCommandsTests {
    @Test func withoutALibraryTheDatabaseCommandsSaySo() async throws {
        let client = try await TestClient(server: TestServer())
        #expect(try await client.send("lsinfo").text == "ACK [50@0] {lsinfo} No database\n")
    }

    @Test func anUpdateOfAnEmptyLibraryGetsAJobAndRaisesIdleUpdate() async throws {
        let server = try TestServer(withLibrary: true)
        defer { server.removeFiles() }
        let client = try await TestClient(server: server)
        #expect(try await client.send("lsinfo").text == "OK\n")
        #expect(try await client.send("update").text == "updating_db: 1\nOK\n")
        #expect(try await client.send("idle update").text == "changed: update\nOK\n")
    }
}
