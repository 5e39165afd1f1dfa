import Foundation
import Logging
import MediaLibrary
import NIOCore
import NIOPosix
import Platform
import Playback
import Settings
import Testing

@testable import Server

/// Sessions run as connections run them: each a task that prefers one event loop
/// (``EventLoopTaskExecutor``), here all on the same single loop.
private struct LoopSessions {
    let loop: any EventLoop
    let context: ServerContext

    /// Starts a session on the loop that sends `lines` one after another; the task returns
    /// each answer. Its first step is on the loop's queue when this returns, so a session
    /// started later runs behind it.
    func start(_ lines: [String]) -> Task<[String], any Error> {
        Task(executorPreference: EventLoopTaskExecutor(loop)) { [loop, context] in
            let handler = SessionInputHandler(timeout: nil)
            var session = SessionLoop(
                server: context, control: SessionControl(handler: handler, eventLoop: loop),
                session: SessionState(permissions: .all, isLocal: false), logger: Logger(label: "test"))
            defer { session.finish() }
            var answers: [String] = []
            for line in lines {
                var written = ""
                _ = try await session.handle(.line(ByteBuffer(string: line))) { written += String(buffer: $0) }
                answers.append(written)
            }
            return answers
        }
    }
}

/// No command handler waits on its event loop for a thread or the disk: while one session's
/// change waits, another session of the same loop is answered (docs/architecture.md,
/// Concurrency).
@Suite struct EventLoopResponsivenessTests {
    static func configuration() -> TonearmConfiguration {
        TonearmConfiguration.defaults(environment: ["HOME": "/home/test"])
    }

    static let decoders = DecoderCatalog(plugin: "ffmpeg", suffixes: ["flac"], mimeTypes: [])

    @Test func aPingIsAnsweredWhileAStoredPlaylistWriteIsHeldUp() async throws {
        let directory = NSTemporaryDirectory() + "tonearm-loop-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = Self.configuration()
        configuration.playlistDirectory = directory
        let context = ServerContext(configuration: configuration, decoders: Self.decoders, shutdown: {})
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let sessions = LoopSessions(loop: group.next(), context: context)

        // The write cannot start: the session that asked for it waits for it.
        context.storedPlaylists.changes.suspend()
        let saving = sessions.start(["save held"])
        let pinging = sessions.start(["ping"])
        #expect(try await pinging.value == ["OK\n"])
        #expect(!FileManager.default.fileExists(atPath: directory + "/held.m3u"))
        context.storedPlaylists.changes.resume()
        #expect(try await saving.value == ["OK\n"])
        #expect(FileManager.default.fileExists(atPath: directory + "/held.m3u"))
        try await group.shutdownGracefully()
    }
}
