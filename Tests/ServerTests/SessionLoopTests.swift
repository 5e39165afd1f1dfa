import Logging
import MPDProtocol
import NIOCore
import NIOEmbedded
import Playback
import Settings
import Synchronization
import Testing

@testable import Server

/// Drives one ``SessionLoop`` the way a connection does, with the real input handler on an
/// embedded channel so that idle wake-ups travel the same path as in production.
private final class SessionHarness {
    let bus = IdleBus()
    let channel: EmbeddedChannel
    var loop: SessionLoop
    private(set) var output = ""
    private(set) var shutdownRequests = 0

    init(
        permissions: Permissions = .all, isLocal: Bool = false,
        configure: (inout TonearmConfiguration) -> Void = { _ in }
    ) {
        var configuration = TonearmConfiguration.defaults(environment: ["HOME": "/home/test"])
        configure(&configuration)
        let handler = SessionInputHandler(timeout: nil)
        channel = EmbeddedChannel(handler: handler)
        let shutdownCounter = ShutdownCounter()
        let context = ServerContext(
            configuration: configuration,
            idleBus: bus,
            decoders: DecoderCatalog(plugin: "ffmpeg", suffixes: ["flac", "mp3"], mimeTypes: ["audio/flac"]),
            shutdown: { shutdownCounter.count() }
        )
        loop = SessionLoop(
            server: context,
            control: SessionControl(handler: handler, eventLoop: channel.eventLoop),
            session: SessionState(permissions: permissions, isLocal: isLocal),
            logger: Logger(label: "test")
        )
        self.shutdownCounter = shutdownCounter
    }

    private let shutdownCounter: ShutdownCounter
    var shutdowns: Int { shutdownCounter.value }

    /// Sends lines; returns what the server wrote and whether it keeps the connection open.
    @discardableResult
    func send(_ lines: String...) async throws -> (output: String, open: Bool) {
        output = ""
        var open = true
        for line in lines where open {
            var written = ""
            open = try await loop.handle(.line(ByteBuffer(string: line))) { written += String(buffer: $0) }
            output += written
        }
        return (output, open)
    }

    /// Lets queued wake-ups reach the session, as the event loop would.
    func deliverWakes() async throws -> String {
        channel.embeddedEventLoop.run()
        var written = ""
        while let input = try channel.readInbound(as: SessionInput.self) {
            _ = try await loop.handle(input) { written += String(buffer: $0) }
        }
        return written
    }
}

/// Counts `kill` requests; the closure the context gets must be Sendable.
private final class ShutdownCounter: Sendable {
    private let counter = Mutex(0)
    func count() { counter.withLock { $0 += 1 } }
    var value: Int { counter.withLock { $0 } }
}

@Suite("Session loop")
struct SessionLoopTests {
    @Test("commands answer OK, unknown ones ACK with an empty command name")
    func basics() async throws {
        let session = SessionHarness()
        #expect(try await session.send("ping").output == "OK\n")
        #expect(try await session.send("foo").output == "ACK [5@0] {} unknown command \"foo\"\n")
        #expect(try await session.send("ping x").output == "ACK [2@0] {ping} wrong number of arguments for \"ping\"\n")
        #expect(try await session.send("ping \"x").output == "ACK [5@0] {} Missing closing '\"'\n")
    }

    @Test("the player's errors answer in MPD's words; volume and setvol differ without a mixer")
    func playerErrors() async throws {
        let session = SessionHarness()
        #expect(try await session.send("play 3").output == "ACK [2@0] {play} Bad song index\n")
        #expect(try await session.send("playid 3").output == "ACK [50@0] {playid} No such song\n")
        #expect(try await session.send("next").output == "ACK [55@0] {next} Not playing\n")
        #expect(try await session.send("setvol 50").output == "ACK [5@0] {setvol} No mixer\n")
        #expect(try await session.send("volume 10").output == "ACK [52@0] {volume} No mixer\n")
    }

    @Test("a bad command word is answered and then closes")
    func badWord() async throws {
        let session = SessionHarness()
        let result = try await session.send("play!", "ping")
        #expect(result.output == "ACK [5@0] {} Invalid word character\n")
        #expect(!result.open)
    }

    @Test("command lists: list_OK, the failing index, no final OK after an error")
    func lists() async throws {
        let session = SessionHarness()
        #expect(
            try await session.send("command_list_ok_begin", "ping", "ping", "command_list_end").output
                == "list_OK\nlist_OK\nOK\n")
        #expect(try await session.send("command_list_begin", "ping", "ping", "command_list_end").output == "OK\n")
        #expect(
            try await session.send("command_list_ok_begin", "ping", "foo", "ping", "command_list_end").output
                == "list_OK\nACK [5@1] {} unknown command \"foo\"\n")
        #expect(try await session.send("command_list_begin", "command_list_end").output == "OK\n")
        #expect(
            try await session.send("command_list_begin", "command_list_begin", "command_list_end").output
                == "ACK [5@0] {} unknown command \"command_list_begin\"\n")
        let closed = try await session.send("command_list_begin", "ping", "close", "ping", "command_list_end")
        #expect(closed.output == "")
        #expect(!closed.open)
    }

    @Test("idle answers at once with pending events, in bit order")
    func idleImmediate() async throws {
        let session = SessionHarness()
        session.bus.emit([.options, .database])
        #expect(try await session.send("idle").output == "changed: database\nchanged: options\nOK\n")
    }

    @Test("idle waits, an event wakes it, other events stay pending")
    func idleWakes() async throws {
        let session = SessionHarness()
        #expect(try await session.send("idle player").output == "")
        session.bus.emit(.mixer)
        #expect(try await session.deliverWakes() == "")
        session.bus.emit(.player)
        #expect(try await session.deliverWakes() == "changed: player\nOK\n")
        #expect(try await session.send("idle").output == "changed: mixer\nOK\n")
    }

    @Test("noidle while idle answers OK; noidle when not idle answers nothing")
    func noidle() async throws {
        let session = SessionHarness()
        #expect(try await session.send("noidle").output == "")
        #expect(try await session.send("idle", "noidle").output == "OK\n")
        session.bus.emit(.player)
        #expect(try await session.deliverWakes() == "")
        #expect(try await session.send("idle player").output == "changed: player\nOK\n")
    }

    @Test("a command while idle closes the connection")
    func commandWhileIdle() async throws {
        let session = SessionHarness()
        let result = try await session.send("idle", "status")
        #expect(result.output == "")
        #expect(!result.open)
    }

    @Test("idle names are checked")
    func idleNames() async throws {
        let session = SessionHarness()
        #expect(try await session.send("idle foo").output == "ACK [2@0] {idle} Unrecognized idle event: foo\n")
        #expect(try await session.send("idle PLAYER MIXER", "noidle").output == "OK\n")
    }

    @Test("passwords replace the permissions")
    func password() async throws {
        let session = SessionHarness(permissions: .none) { configuration in
            configuration.passwords = [PasswordEntry(password: "secret", permissions: [.read])]
        }
        #expect(try await session.send("idle").output == "ACK [4@0] {idle} you don't have permission for \"idle\"\n")
        #expect(try await session.send("password wrong").output == "ACK [3@0] {password} incorrect password\n")
        #expect(try await session.send("password secret").output == "OK\n")
        #expect(try await session.send("idle", "noidle").output == "OK\n")
        #expect(try await session.send("kill").output == "ACK [4@0] {kill} you don't have permission for \"kill\"\n")
    }

    @Test("tagtypes sub-commands")
    func tagTypes() async throws {
        let session = SessionHarness()
        let all = try await session.send("tagtypes").output
        #expect(all.hasPrefix("tagtype: Artist\ntagtype: ArtistSort\n"))
        #expect(!all.contains("Comment"))
        #expect(try await session.send("tagtypes clear", "tagtypes").output == "OK\nOK\n")
        #expect(
            try await session.send("tagtypes enable title ARTIST", "tagtypes").output
                == "OK\ntagtype: Artist\ntagtype: Title\nOK\n")
        #expect(try await session.send("tagtypes disable artist", "tagtypes").output == "OK\ntagtype: Title\nOK\n")
        #expect(try await session.send("tagtypes reset album", "tagtypes").output == "OK\ntagtype: Album\nOK\n")
        #expect(try await session.send("tagtypes enable").output == "ACK [2@0] {tagtypes} Not enough arguments\n")
        #expect(try await session.send("tagtypes enable nope").output == "ACK [2@0] {tagtypes} Unknown tag type\n")
        #expect(try await session.send("tagtypes all x").output == "ACK [2@0] {tagtypes} Too many arguments\n")
        #expect(try await session.send("tagtypes foo").output == "ACK [2@0] {tagtypes} Unknown sub command\n")
        #expect(try await session.send("tagtypes available").output == all)
    }

    @Test("protocol features")
    func protocolFeatures() async throws {
        let session = SessionHarness()
        #expect(try await session.send("protocol").output == "OK\n")
        #expect(try await session.send("protocol available").output == "feature: hide_playlists_in_root\nOK\n")
        #expect(
            try await session.send("protocol enable HIDE_PLAYLISTS_IN_ROOT", "protocol").output
                == "OK\nfeature: hide_playlists_in_root\nOK\n")
        #expect(try await session.send("protocol clear", "protocol").output == "OK\nOK\n")
        #expect(try await session.send("protocol enable x").output == "ACK [2@0] {protocol} Unknown protocol feature\n")
        #expect(try await session.send("protocol bogus").output == "ACK [2@0] {protocol} Unknown sub command\n")
    }

    @Test("binarylimit bounds")
    func binaryLimit() async throws {
        let session = SessionHarness()
        #expect(try await session.send("binarylimit 64").output == "OK\n")
        #expect(session.loop.state.binaryLimit == 64)
        #expect(try await session.send("binarylimit 63").output == "ACK [2@0] {binarylimit} Value too small\n")
        #expect(try await session.send("binarylimit 8384512").output == "OK\n")
        #expect(
            try await session.send("binarylimit 8384513").output
                == "ACK [2@0] {binarylimit} Number too large: 8384513\n")
        #expect(try await session.send("binarylimit x").output == "ACK [2@0] {binarylimit} Integer expected: x\n")
    }

    @Test("config is for local clients only")
    func config() async throws {
        let remote = SessionHarness()
        #expect(
            try await remote.send("config").output
                == "ACK [4@0] {config} Command only permitted to local clients\n")
        let local = SessionHarness(isLocal: true)
        let output = try await local.send("config").output
        #expect(output.hasPrefix("music_directory: /"))
        #expect(output.contains("playlist_directory: /"))
        #expect(output.hasSuffix("OK\n"))
        #expect(try await local.send("urlhandlers").output == "handler: file://\nOK\n")
        #expect(try await remote.send("urlhandlers").output == "OK\n")
    }

    @Test("decoders lists the catalog")
    func decoders() async throws {
        let session = SessionHarness()
        #expect(
            try await session.send("decoders").output
                == "plugin: ffmpeg\nsuffix: flac\nsuffix: mp3\nmime_type: audio/flac\nOK\n")
    }

    @Test("kill asks the server to stop and closes")
    func kill() async throws {
        let session = SessionHarness()
        let result = try await session.send("kill")
        #expect(result.output == "")
        #expect(!result.open)
        #expect(session.shutdowns == 1)
    }
}

@Suite("Session loop: stickers and messages")
struct SessionLoopStickerTests {
    @Test("without a sticker database the sticker commands are hidden and answer that it is disabled")
    func stickersDisabled() async throws {
        let session = SessionHarness()
        let commands = try await session.send("commands").output
        #expect(!commands.contains("command: sticker"))
        #expect(commands.contains("command: subscribe\n"))
        // notcommands looks at permissions only, as in MPD.
        #expect(try await session.send("notcommands").output == "OK\n")
        #expect(
            try await session.send("sticker get song a b").output
                == "ACK [5@0] {sticker} sticker database is disabled\n")
        #expect(
            try await session.send("stickernames").output
                == "ACK [5@0] {stickernames} sticker database is disabled\n")
    }

    @Test("a session's own message reaches it, with idle message once")
    func ownMessage() async throws {
        let session = SessionHarness()
        #expect(
            try await session.send("subscribe me", "sendmessage me hi", "sendmessage me again").output == "OK\nOK\nOK\n"
        )
        #expect(try await session.send("idle message").output == "changed: message\nOK\n")
        #expect(
            try await session.send("readmessages").output
                == "channel: me\nmessage: hi\nchannel: me\nmessage: again\nOK\n")
        #expect(try await session.send("channels").output == "channel: me\nOK\n")
        session.loop.finish()
    }
}
