import Dispatch
import Foundation
import Logging
import MediaLibrary
import MusicModel
import NIOCore
import NIOPosix
import Platform
import Settings
import Synchronization
import TestSupport
import Testing

@testable import Playback
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

/// A device whose write does not return until the test lets it: an output thread stuck in a
/// device (a pipe whose reader stopped reading).
final class HeldDevice: AudioOutputDevice, @unchecked Sendable {
    /// The output's name, as `moveoutput` names it.
    let name = "held"
    /// A plugin of its own, which `outputs` would print.
    let plugin = "test"
    /// Whether a write has begun.
    let writing = Mutex(false)
    /// Signalled by the test to let the first write return; later writes return at once.
    let release = DispatchSemaphore(value: 0)
    private let released = Mutex(false)

    func open(format: PCMFormat) throws(OutputError) -> PCMFormat { format }
    func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) -> Int {
        writing.withLock { $0 = true }
        if !released.withLock({ $0 }) {
            release.wait()
            released.withLock { $0 = true }
        }
        return bytes.count
    }
    func drain() {}
    func cancel() {}
    func pause() -> Bool { true }
    func close() {}
}

/// Endless silence, 8 kHz mono.
private final class Silence: PCMSource {
    let sourceFormat = PCMFormat(sampleRate: 8000, sample: .s16, channels: 1)
    let bitrate = 128
    private(set) var position = 0.0
    var replayGain: ReplayGainInfo? { nil }
    func seek(to seconds: Double) { position = seconds }
    func read(into buffer: UnsafeMutableRawBufferPointer, format: PCMFormat) -> Int {
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        position += Double(buffer.count / 2) / 8000
        return buffer.count - buffer.count % 2
    }
}

/// No command handler waits on its event loop for a thread or the disk: while one session's
/// change waits, another session of the same loop is answered (docs/internals.md,
/// Concurrency).
@Suite struct EventLoopResponsivenessTests {
    /// MPD's defaults, with no `audio_output` block.
    static func configuration() -> TonearmConfiguration {
        TonearmConfiguration.defaults(environment: ["HOME": "/home/test"])
    }

    /// What `decoders` would list; nothing here decodes.
    static let decoders = DecoderCatalog(plugin: "ffmpeg", suffixes: ["flac"], mimeTypes: [])

    @Test func aPingIsAnsweredWhileAStoredPlaylistWriteIsHeldUp() async throws {
        let directory = NSTemporaryDirectory() + "tonearm-loop-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let context = try TestServer { $0.playlistDirectory = directory }.context
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

    /// Plays the default partition into a device whose output thread is stuck in a write;
    /// a session of the loop moves the output into partition `x` while another pings. Returns
    /// the mover's answers, once the thread lets go (`release`) or the move gives up, and the
    /// partitions holding the device then (default's, `x`'s).
    static func moveWhilePinging(release: Bool) async throws -> (answers: [String], held: [[Int]]) {
        let device = HeldDevice()
        let makePipeline: @Sendable (Bool) -> DecodingPipeline = { attached in
            DecodingPipeline(
                outputs: [.init(name: "held", device: device, format: nil, softwareVolume: false)],
                attached: attached, bufferBytes: 64 * 1024, openSource: { _ in Silence() })
        }
        let configuration = Self.configuration()
        let context = ServerContext(
            configuration: configuration, idleBus: IdleBus(),
            metadataTags: TagMask(metadataToUse: configuration.metadataToUse), decoders: Self.decoders,
            library: nil, stickers: nil, playStatistics: nil,
            pipelines: PartitionPipelines(defaultPipeline: makePipeline(true)) { makePipeline(false) },
            logger: Logger(label: "tonearm-test") { _ in SwiftLogNoOpLogHandler() })
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer {
            for _ in 0..<10 { device.release.signal() }
            for partition in context.partitions.all { partition.pipeline.shutDown() }
        }
        let home = context.partitions.defaultPartition
        let x = try await context.partitions.create("x")
        let pipeline = home.pipeline
        _ = pipeline.play(
            PipelineTrack(token: 1, path: "/silence", duration: nil, audioFormat: nil), from: 0, paused: false)
        for _ in 0..<1000 where !device.writing.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(device.writing.withLock { $0 })

        let sessions = LoopSessions(loop: group.next(), context: context)
        let moving = sessions.start(["partition x", "moveoutput held"])
        // The default partition lets the output go first, then waits for its thread.
        for _ in 0..<1000 where pipeline.holdsOutput(0) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(try await sessions.start(["ping"]).value == ["OK\n"])
        // Answered while the move still waits: neither partition holds the output.
        #expect(home.heldDevices == [] && x.heldDevices == [])
        if release { device.release.signal() }
        let answers = try await moving.value
        try await group.shutdownGracefully()
        return (answers, [home.heldDevices, x.heldDevices])
    }

    @Test func aPingIsAnsweredWhileMoveoutputWaitsForTheOutputThread() async throws {
        let (answers, held) = try await Self.moveWhilePinging(release: true)
        #expect(answers == ["OK\n", "OK\n"])
        #expect(held == [[], [0]])
    }

    /// An output thread that never lets go still gets MPD's error, after
    /// ``DecodingPipeline/detachTimeout``, and the output stays where it was.
    @Test func moveoutputStillFailsWhenTheDeviceWillNotLetGo() async throws {
        let (answers, held) = try await Self.moveWhilePinging(release: false)
        #expect(answers == ["OK\n", "ACK [5@0] {moveoutput} output \"held\" is busy\n"])
        #expect(held == [[0], []])
    }
}
