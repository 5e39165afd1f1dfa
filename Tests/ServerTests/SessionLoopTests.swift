import MusicModel
import Server
import Settings
import TestSupport
import Testing

/// A client of a new ``TestServer``: lines go through the production channel handlers and
/// ``SessionLoop``, so idle wake-ups travel the same path as on a socket.
private func connect(
    permissions: Permissions = .all, isLocal: Bool = false,
    configure: (inout TonearmConfiguration) -> Void = { _ in }
) async throws -> TestClient {
    try await TestClient(server: TestServer(configure: configure), permissions: permissions, isLocal: isLocal)
}

@Suite("Session loop")
struct SessionLoopTests {
    @Test("commands answer OK, unknown ones ACK with an empty command name")
    func basics() async throws {
        let session = try await connect()
        #expect(try await session.send("ping").text == "OK\n")
        #expect(try await session.send("foo").text == "ACK [5@0] {} unknown command \"foo\"\n")
        #expect(try await session.send("ping x").text == "ACK [2@0] {ping} wrong number of arguments for \"ping\"\n")
        #expect(try await session.send("ping \"x").text == "ACK [5@0] {} Missing closing '\"'\n")
    }

    @Test("the player's errors answer in MPD's words; volume and setvol differ without a mixer")
    func playerErrors() async throws {
        let session = try await connect()
        #expect(try await session.send("play 3").text == "ACK [2@0] {play} Bad song index\n")
        #expect(try await session.send("playid 3").text == "ACK [50@0] {playid} No such song\n")
        #expect(try await session.send("next").text == "ACK [55@0] {next} Not playing\n")
        #expect(try await session.send("setvol 50").text == "ACK [5@0] {setvol} No mixer\n")
        #expect(try await session.send("volume 10").text == "ACK [52@0] {volume} No mixer\n")
    }

    @Test("a bad command word is answered and then closes")
    func badWord() async throws {
        let session = try await connect()
        let result = try await session.send("play!", "ping")
        #expect(result.text == "ACK [5@0] {} Invalid word character\n")
        #expect(!result.isOpen)
    }

    @Test("command lists: list_OK, the failing index, no final OK after an error")
    func lists() async throws {
        let session = try await connect()
        #expect(
            try await session.send("command_list_ok_begin", "ping", "ping", "command_list_end").text
                == "list_OK\nlist_OK\nOK\n")
        #expect(try await session.send("command_list_begin", "ping", "ping", "command_list_end").text == "OK\n")
        #expect(
            try await session.send("command_list_ok_begin", "ping", "foo", "ping", "command_list_end").text
                == "list_OK\nACK [5@1] {} unknown command \"foo\"\n")
        #expect(try await session.send("command_list_begin", "command_list_end").text == "OK\n")
        #expect(
            try await session.send("command_list_begin", "command_list_begin", "command_list_end").text
                == "ACK [5@0] {} unknown command \"command_list_begin\"\n")
        let closed = try await session.send("command_list_begin", "ping", "close", "ping", "command_list_end")
        #expect(closed.text == "")
        #expect(!closed.isOpen)
    }

    @Test("a list goes on past a command that suspends, its answers in order; a failure there ends it")
    func listAcrossASuspendingCommand() async throws {
        // `repeat` and `random` run as their line arrives; `find` reads the library in the
        // session's task, which carries out the rest of the list.
        let server = try await FindOneReadTests.server(songs: 3)
        defer { server.removeFiles() }
        let session = try await TestClient(server: server)
        let watcher = try await TestClient(server: server)
        #expect(try await watcher.send("idle options").text == "")
        let listing = try await session.send("find artist \"Artist 1\"").text
        #expect(listing.hasPrefix("file: d0/1.mp3\n") && listing.hasSuffix("OK\n"))
        let answer = try await session.send(
            "command_list_ok_begin", "repeat 1", "find artist \"Artist 1\"", "random 1", "command_list_end")
        #expect(answer.text == "list_OK\n" + listing.dropLast(3) + "list_OK\nlist_OK\nOK\n")
        // The idle client is told once, and nothing is left pending for it.
        #expect(try await watcher.deliverIdleWakes().text == "changed: options\nOK\n")
        #expect(try await watcher.send("idle options").text == "")
        #expect(try await watcher.send("noidle").text == "OK\n")
        let failed = try await session.send(
            "command_list_begin", "repeat 0", "lsinfo nowhere", "random 0", "command_list_end")
        #expect(failed.text == "ACK [50@1] {lsinfo} No such directory\n")
        let status = try await session.send("status").lines
        #expect(status.contains("repeat: 0") && status.contains("random: 1"))
    }

    @Test("idle answers at once with pending events, in bit order")
    func idleImmediate() async throws {
        let session = try await connect()
        session.server.idleBus.emit([.options, .database])
        #expect(try await session.send("idle").text == "changed: database\nchanged: options\nOK\n")
    }

    @Test("idle waits, an event wakes it, other events stay pending")
    func idleWakes() async throws {
        let session = try await connect()
        #expect(try await session.send("idle player").text == "")
        session.server.idleBus.emit(.mixer)
        #expect(try await session.deliverIdleWakes().text == "")
        session.server.idleBus.emit(.player)
        #expect(try await session.deliverIdleWakes().text == "changed: player\nOK\n")
        #expect(try await session.send("idle").text == "changed: mixer\nOK\n")
    }

    @Test("noidle while idle answers OK; noidle when not idle answers nothing")
    func noidle() async throws {
        let session = try await connect()
        #expect(try await session.send("noidle").text == "")
        #expect(try await session.send("idle", "noidle").text == "OK\n")
        session.server.idleBus.emit(.player)
        #expect(try await session.deliverIdleWakes().text == "")
        #expect(try await session.send("idle player").text == "changed: player\nOK\n")
    }

    @Test("a command while idle closes the connection")
    func commandWhileIdle() async throws {
        let session = try await connect()
        let result = try await session.send("idle", "status")
        #expect(result.text == "")
        #expect(!result.isOpen)
    }

    @Test("idle names are checked")
    func idleNames() async throws {
        let session = try await connect()
        #expect(try await session.send("idle foo").text == "ACK [2@0] {idle} Unrecognized idle event: foo\n")
        #expect(try await session.send("idle PLAYER MIXER", "noidle").text == "OK\n")
    }

    @Test("passwords replace the permissions")
    func password() async throws {
        let session = try await connect(permissions: .none) { configuration in
            configuration.passwords = [PasswordEntry(password: "secret", permissions: [.read])]
        }
        #expect(try await session.send("idle").text == "ACK [4@0] {idle} you don't have permission for \"idle\"\n")
        #expect(try await session.send("password wrong").text == "ACK [3@0] {password} incorrect password\n")
        #expect(try await session.send("password secret").text == "OK\n")
        #expect(try await session.send("idle", "noidle").text == "OK\n")
        #expect(try await session.send("kill").text == "ACK [4@0] {kill} you don't have permission for \"kill\"\n")
    }

    @Test("tagtypes sub-commands")
    func tagTypes() async throws {
        let session = try await connect()
        let all = try await session.send("tagtypes").text
        #expect(all.hasPrefix("tagtype: Artist\ntagtype: ArtistSort\n"))
        #expect(!all.contains("Comment"))
        #expect(try await session.send("tagtypes clear", "tagtypes").text == "OK\nOK\n")
        #expect(
            try await session.send("tagtypes enable title ARTIST", "tagtypes").text
                == "OK\ntagtype: Artist\ntagtype: Title\nOK\n")
        #expect(try await session.send("tagtypes disable artist", "tagtypes").text == "OK\ntagtype: Title\nOK\n")
        #expect(try await session.send("tagtypes reset album", "tagtypes").text == "OK\ntagtype: Album\nOK\n")
        #expect(try await session.send("tagtypes enable").text == "ACK [2@0] {tagtypes} Not enough arguments\n")
        #expect(try await session.send("tagtypes enable nope").text == "ACK [2@0] {tagtypes} Unknown tag type\n")
        #expect(try await session.send("tagtypes all x").text == "ACK [2@0] {tagtypes} Too many arguments\n")
        #expect(try await session.send("tagtypes foo").text == "ACK [2@0] {tagtypes} Unknown sub command\n")
        #expect(try await session.send("tagtypes available").text == all)
    }

    @Test("protocol features")
    func protocolFeatures() async throws {
        let session = try await connect()
        #expect(try await session.send("protocol").text == "OK\n")
        #expect(try await session.send("protocol available").text == "feature: hide_playlists_in_root\nOK\n")
        #expect(
            try await session.send("protocol enable HIDE_PLAYLISTS_IN_ROOT", "protocol").text
                == "OK\nfeature: hide_playlists_in_root\nOK\n")
        #expect(try await session.send("protocol clear", "protocol").text == "OK\nOK\n")
        #expect(try await session.send("protocol enable x").text == "ACK [2@0] {protocol} Unknown protocol feature\n")
        #expect(try await session.send("protocol bogus").text == "ACK [2@0] {protocol} Unknown sub command\n")
    }

    @Test("binarylimit bounds")
    func binaryLimit() async throws {
        let session = try await connect()
        #expect(try await session.send("binarylimit 64").text == "OK\n")
        #expect(session.session.binaryLimit == 64)
        #expect(try await session.send("binarylimit 63").text == "ACK [2@0] {binarylimit} Value too small\n")
        #expect(try await session.send("binarylimit 8384512").text == "OK\n")
        #expect(
            try await session.send("binarylimit 8384513").text
                == "ACK [2@0] {binarylimit} Number too large: 8384513\n")
        #expect(try await session.send("binarylimit x").text == "ACK [2@0] {binarylimit} Integer expected: x\n")
    }

    @Test("config is for local clients only")
    func config() async throws {
        let remote = try await connect()
        #expect(
            try await remote.send("config").text
                == "ACK [4@0] {config} Command only permitted to local clients\n")
        let local = try await connect(isLocal: true)
        let output = try await local.send("config").text
        #expect(output.hasPrefix("music_directory: /"))
        #expect(output.contains("playlist_directory: /"))
        #expect(output.hasSuffix("OK\n"))
        #expect(
            try await local.send("urlhandlers").text == "handler: file://\nhandler: http://\nhandler: https://\nOK\n")
        #expect(try await remote.send("urlhandlers").text == "handler: http://\nhandler: https://\nOK\n")
    }

    @Test("decoders lists the catalog")
    func decoders() async throws {
        let session = try await connect()
        #expect(
            try await session.send("decoders").text
                == "plugin: ffmpeg\nsuffix: flac\nsuffix: mp3\nmime_type: audio/flac\nOK\n")
    }

    @Test("kill asks the server to stop and closes")
    func kill() async throws {
        let session = try await connect()
        let result = try await session.send("kill")
        #expect(result.text == "")
        #expect(!result.isOpen)
        #expect(session.server.shutdownRequests == 1)
    }
}

@Suite("Session loop: stickers and messages")
struct SessionLoopStickerTests {
    @Test("without a sticker database the sticker commands are hidden and answer that it is disabled")
    func stickersDisabled() async throws {
        let session = try await connect()
        let commands = try await session.send("commands").text
        #expect(!commands.contains("command: sticker"))
        #expect(commands.contains("command: subscribe\n"))
        // notcommands looks at permissions only, as in MPD.
        #expect(try await session.send("notcommands").text == "OK\n")
        #expect(
            try await session.send("sticker get song a b").text
                == "ACK [5@0] {sticker} sticker database is disabled\n")
        #expect(
            try await session.send("stickernames").text
                == "ACK [5@0] {stickernames} sticker database is disabled\n")
    }

    @Test("a session's own message reaches it, with idle message once")
    func ownMessage() async throws {
        let session = try await connect()
        #expect(
            try await session.send("subscribe me", "sendmessage me hi", "sendmessage me again").text == "OK\nOK\nOK\n"
        )
        #expect(try await session.send("idle message").text == "changed: message\nOK\n")
        #expect(
            try await session.send("readmessages").text
                == "channel: me\nmessage: hi\nchannel: me\nmessage: again\nOK\n")
        #expect(try await session.send("channels").text == "channel: me\nOK\n")
    }
}
