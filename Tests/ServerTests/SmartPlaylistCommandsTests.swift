import Foundation
import MPDProtocol
import MediaLibrary
import Settings
import TestSupport
import Testing

@testable import Server

/// `smartplaylist`, `smartplaylistinfo` and the stored playlist commands on smart playlists,
/// over an empty library through ``TestClient`` (the songs they choose are the integration
/// tests' part: Tests/Integration/test_smart_playlists.py).
@Suite struct SmartPlaylistCommandsTests {
    /// A server with an empty library, the client, and the playlist directory.
    static func start() async throws -> (TestServer, TestClient, String) {
        let server = try TestServer(withLibrary: true)
        return (server, try await TestClient(server: server), server.context.configuration.playlistDirectory)
    }

    @Test func aDefinitionIsWrittenAsAFileAndShownAsItWasGiven() async throws {
        let (server, client, directory) = try await Self.start()
        defer { server.removeFiles() }
        let define =
            #"smartplaylist "Best jazz" "(genre == 'jazz')" "(sticker:rating >= 8)" sort -sticker:rating limit 20"#
        #expect(try await client.send(define).text == "OK\n")
        #expect(try await client.send("idle stored_playlist").text == "changed: stored_playlist\nOK\n")
        let file = try String(contentsOfFile: directory + "/Best jazz.smartpl", encoding: .utf8)
        #expect(
            file.split(separator: "\n").dropFirst()
                == ["filter: (genre == 'jazz')", "filter: (sticker:rating >= 8)", "sort: -sticker:rating", "limit: 20"])
        let info = try await client.send(#"smartplaylistinfo "Best jazz""#).lines
        #expect(info.first == "playlist: Best jazz" && info[1].hasPrefix("Last-Modified: "))
        #expect(
            Array(info.dropFirst(2))
                == [
                    "filter: (genre == 'jazz')", "filter: (sticker:rating >= 8)", "sort: -sticker:rating", "limit: 20",
                    "OK",
                ])
        // Defined again: the new rule replaces the old one.
        #expect(try await client.send(#"smartplaylist "Best jazz" "(base 'Jazz')""#).text == "OK\n")
        #expect(
            Array(try await client.send("smartplaylistinfo").lines.dropFirst(2)) == ["filter: (base 'Jazz')", "OK"])
    }

    @Test func theStoredPlaylistCommandsListAndReadIt() async throws {
        let (server, client, _) = try await Self.start()
        defer { server.removeFiles() }
        #expect(try await client.send("save stored", #"smartplaylist smart "(base '')""#).text == "OK\nOK\n")
        let listing = try await client.send("listplaylists").lines
        #expect(listing.filter { $0.hasPrefix("playlist: ") } == ["playlist: smart", "playlist: stored"])
        #expect(try await client.send("listplaylist smart").text == "OK\n")
        #expect(try await client.send("playlistlength smart").text == "songs: 0\nplaytime: 0\nOK\n")
        #expect(try await client.send("load smart").text == "OK\n")
        #expect(try await client.send("status").lines.contains("lastloadedplaylist: smart"))
    }

    @Test func editsOfASmartPlaylistAreRefusedAndChangeNothing() async throws {
        let (server, client, directory) = try await Self.start()
        defer { server.removeFiles() }
        #expect(try await client.send(#"smartplaylist s "(base '')" limit 5"#).text == "OK\n")
        let before = try String(contentsOfFile: directory + "/s.smartpl", encoding: .utf8)
        let refused = #"Cannot edit smart playlist "s": its rule chooses its songs"#
        for command in [
            "playlistclear s", "playlistdelete s 0", "playlistmove s 0 1", "save s append", "save s replace",
            #"playlistadd s "" 0"#, #"searchaddpl s "(base '')" position 0"#,
        ] {
            let name = String(command.prefix { $0 != " " })
            #expect(try await client.send(command).text == "ACK [4@0] {\(name)} \(refused)\n", "\(command)")
        }
        #expect(try await client.send("save s").text == "ACK [56@0] {save} Playlist already exists\n")
        #expect(try String(contentsOfFile: directory + "/s.smartpl", encoding: .utf8) == before)
        #expect(!FileManager.default.fileExists(atPath: directory + "/s.m3u"))
    }

    @Test func renameAndRmTakeEitherKind() async throws {
        let (server, client, directory) = try await Self.start()
        defer { server.removeFiles() }
        #expect(try await client.send("save stored", #"smartplaylist smart "(base '')""#).text == "OK\nOK\n")
        #expect(try await client.send("rename smart stored").text == "ACK [56@0] {rename} Playlist exists already\n")
        #expect(try await client.send("rename stored smart").text == "ACK [56@0] {rename} Playlist exists already\n")
        #expect(try await client.send("rename smart clever").text == "OK\n")
        #expect(FileManager.default.fileExists(atPath: directory + "/clever.smartpl"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/smart.smartpl"))
        #expect(try await client.send("rm clever", "rm stored").text == "OK\nOK\n")
        #expect(try await client.send("listplaylists").text == "OK\n")
        #expect(try await client.send("rm clever").text == "ACK [50@0] {rm} No such playlist\n")
    }

    @Test func aStoredPlaylistIsNotReplacedByASmartOne() async throws {
        let (server, client, _) = try await Self.start()
        defer { server.removeFiles() }
        #expect(try await client.send("save mine").text == "OK\n")
        #expect(
            try await client.send(#"smartplaylist mine "(base '')""#).text
                == "ACK [56@0] {smartplaylist} Playlist already exists\n")
        #expect(
            try await client.send("smartplaylistinfo mine").text
                == "ACK [50@0] {smartplaylistinfo} No such smart playlist\n")
    }

    @Test func badDefinitionsGetTheParsersAnswer() async throws {
        let (server, client, directory) = try await Self.start()
        defer { server.removeFiles() }
        let cases = [
            (#"smartplaylist "" "(base '')""#, "ACK [2@0] {smartplaylist} Bad playlist name"),
            (#"smartplaylist a/b "(base '')""#, "ACK [2@0] {smartplaylist} Bad playlist name"),
            (#"smartplaylist x "(colour == 'red')""#, "ACK [2@0] {smartplaylist} Unknown filter type: colour"),
            (
                #"smartplaylist x "(sticker:rating =< 3)""#,
                "ACK [2@0] {smartplaylist} Unknown sticker operator: =< 3); expected ==, !=, <, <=, >, >="
            ),
            (#"smartplaylist x "(base '')" sort Colour"#, "ACK [2@0] {smartplaylist} Unknown sort tag"),
            (#"smartplaylist x "(base '')" limit 0"#, "ACK [2@0] {smartplaylist} limit must be 1 or more"),
            (
                "smartplaylist x artist Alpha",
                "ACK [2@0] {smartplaylist} A smart playlist's filter is an expression in parentheses: artist"
            ),
            ("smartplaylist x", #"ACK [2@0] {smartplaylist} too few arguments for "smartplaylist""#),
        ]
        for (command, answer) in cases {
            #expect(try await client.send(command).text == answer + "\n", "\(command)")
        }
        #expect(
            try await client.send(#"smartplaylist x "(title =~ '(')""#).text.hasPrefix("ACK [2@0] {smartplaylist} "))
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).isEmpty)
        #expect(
            try await client.send("smartplaylistinfo nothing").text
                == "ACK [50@0] {smartplaylistinfo} No such smart playlist\n")
    }

    @Test func aFileThatDoesNotReadIsLeftOutAndNamedWhenAsked() async throws {
        let (server, client, directory) = try await Self.start()
        defer { server.removeFiles() }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "filter: (base '')\nsort: Title\nlimit: lots\n".write(
            toFile: directory + "/broken.smartpl", atomically: true, encoding: .utf8)
        #expect(try await client.send(#"smartplaylist fine "(base '')""#).text == "OK\n")
        #expect(
            try await client.send("listplaylists").lines.filter { $0.hasPrefix("playlist: ") } == ["playlist: fine"])
        #expect(try await client.send("smartplaylistinfo").lines.first == "playlist: fine")
        let answer = #"Bad smart playlist "broken": broken.smartpl:3: Integer expected: lots"#
        for command in ["listplaylist broken", "listplaylistinfo broken", "load broken", "playlistlength broken"] {
            let name = String(command.prefix { $0 != " " })
            #expect(try await client.send(command).text == "ACK [53@0] {\(name)} \(answer)\n", "\(command)")
        }
        #expect(try await client.send("smartplaylistinfo broken").text == "ACK [53@0] {smartplaylistinfo} \(answer)\n")
        // Still a smart playlist: not edited, but renamed and removed.
        #expect(try await client.send("playlistclear broken").text.hasPrefix("ACK [4@0] {playlistclear}"))
        #expect(try await client.send("rename broken fixed", "rm fixed").text == "OK\nOK\n")
        #expect(!FileManager.default.fileExists(atPath: directory + "/fixed.smartpl"))
    }

    @Test func theCommandsAreListed() async throws {
        let (server, client, _) = try await Self.start()
        defer { server.removeFiles() }
        let commands = try await client.send("commands").lines
        #expect(commands.contains("command: smartplaylist") && commands.contains("command: smartplaylistinfo"))
    }

    @Test func theDefaultSetIsWrittenOnceAndADeletedOneStaysGone() async throws {
        let (server, client, directory) = try await Self.start()
        defer { server.removeFiles() }
        let store = server.context.storedPlaylists
        SmartPlaylistDefaults.install(into: store, withStickers: true, logger: server.logger)
        #expect(
            try await client.send("listplaylists").lines.filter { $0.hasPrefix("playlist: ") }
                == [
                    "playlist: Most played", "playlist: Never played", "playlist: Recently added",
                    "playlist: Top rated",
                ])
        #expect(try await client.send(#"rm "Top rated""#, #"rename "Never played" Unheard"#).text == "OK\nOK\n")
        SmartPlaylistDefaults.install(into: store, withStickers: true, logger: server.logger)
        #expect(
            try await client.send("listplaylists").lines.filter { $0.hasPrefix("playlist: ") }
                == ["playlist: Most played", "playlist: Recently added", "playlist: Unheard"])
        #expect(FileManager.default.fileExists(atPath: directory + "/" + SmartPlaylistDefaults.recordName))
    }

    @Test func withoutStickersOnlyTheDefaultsThatReadNoneAreWritten() async throws {
        let (server, client, _) = try await Self.start()
        defer { server.removeFiles() }
        SmartPlaylistDefaults.install(into: server.context.storedPlaylists, withStickers: false, logger: server.logger)
        #expect(
            try await client.send("listplaylists").lines.filter { $0.hasPrefix("playlist: ") }
                == ["playlist: Recently added"])
    }
}
