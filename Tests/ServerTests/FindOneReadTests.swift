import Foundation
import GRDB
import MusicModel
import TestSupport
import Testing

@testable import MediaLibrary
@testable import Server

/// `find` and `search` print from one read (``Library/writeMatchingSongs``) unless they sort or
/// window; a window prints through the ids and pages. The two must give the same bytes, past
/// ``DatabaseQueryCommands/oneReadLimit`` too, where the one read only places the songs.
@Suite("find and search from one read")
struct FindOneReadTests {
    /// A server whose library holds `count` songs written as a scan writes them, with a walk
    /// order that is the reverse of their ids, and every tenth song titled "… night …".
    static func server(songs count: Int) async throws -> TestServer {
        let server = try TestServer(withLibrary: true)
        let library = try #require(server.context.library)
        try await library.store.pool.write { db in
            for number in 0..<count {
                let title = number % 10 == 0 ? "Song \(number) at night" : "Song \(number)"
                try SongWriter.write(
                    DiskTree.File(uri: "d\(number / 100)/\(number).mp3", mtime: 1_700_000_000 + Int64(number), size: 1),
                    FileMetadata(
                        tags: [
                            TagValue(.artist, "Artist \(number % 7)"), TagValue(.title, title),
                            TagValue(.track, "\(number % 20)"),
                        ],
                        duration: Double(number % 300) + 0.5),
                    directory: 1, existing: nil, now: 1_700_000_000, db)
            }
            try db.execute(sql: "UPDATE song SET ord = 1000000 - id")
        }
        return server
    }

    @Test func pastTheLimitTheAnswerIsThePagedOne() async throws {
        let count = DatabaseQueryCommands.oneReadLimit + 150
        let server = try await Self.server(songs: count)
        defer { server.removeFiles() }
        let client = try await TestClient(server: server)
        // Every title holds "Song": a search through the trigram index, which the one read takes.
        let whole = try await client.send(#"search title "song""#).text
        let paged = try await client.send(#"search title "song" window 0:\#(count)"#).text
        #expect(whole.hasSuffix("\nOK\n"))
        #expect(whole.components(separatedBy: "file: ").count - 1 == count)
        #expect(whole == paged)
        // Walk order: the last song written comes first.
        #expect(whole.hasPrefix("file: d\((count - 1) / 100)/\(count - 1).mp3\n"))
    }

    @Test func withinTheLimitTheAnswerIsThePagedOne() async throws {
        let server = try await Self.server(songs: 2_000)
        defer { server.removeFiles() }
        let client = try await TestClient(server: server)
        for command in [#"search title "NIGHT""#, #"find artist "Artist 3""#] {
            let oneRead = try await client.send(command).text
            let paged = try await client.send(command + " window 0:100000").text
            #expect(oneRead.contains("file: "), "\(command)")
            #expect(oneRead == paged, "\(command)")
        }
        #expect(try await client.send(#"search title "night""#).text.components(separatedBy: "file: ").count - 1 == 200)
    }
}
