import Foundation
package import Logging
import MediaLibrary
import MusicModel
import Playback
package import Server
package import Settings
import Synchronization

/// A server for tests, without listeners: made of the same parts as `tonearm` makes it
/// (Sources/tonearm/ServerAssembly.swift), but over the clock-paced ``PacedNullPipeline`` and
/// with no sticker database. Its clients are ``TestClient``s.
package final class TestServer: Sendable {
    /// The parts every session shares.
    package let context: ServerContext
    /// The temporary directory holding the music folder and the database, when the server has
    /// a library; ``removeFiles()`` deletes it.
    package let directory: String?
    /// The log of the server's parts and sessions; it discards everything.
    package let logger: Logger
    private let shutdowns = Mutex(0)

    /// Makes the server.
    /// - Parameters:
    ///   - withLibrary: gives the server an empty library (a music folder and a database in a
    ///     temporary directory); without one, database commands answer `No database`.
    ///   - hasMixer: whether the default partition's pipeline lets the volume change.
    ///   - configure: changes the configuration: MPD's defaults, with `HOME` at /home/test.
    package init(
        withLibrary: Bool = false, hasMixer: Bool = false, configure: (inout TonearmConfiguration) -> Void = { _ in }
    ) throws {
        var configuration = TonearmConfiguration.defaults(environment: ["HOME": "/home/test"])
        var directory: String?
        if withLibrary {
            let root = NSTemporaryDirectory() + "tonearm-test-server-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: root + "/music", withIntermediateDirectories: true)
            configuration.musicDirectory = root + "/music"
            configuration.dbFile = root + "/db.sqlite"
            configuration.playlistDirectory = root + "/playlists"
            directory = root
        }
        configure(&configuration)
        self.directory = directory
        let logger = Logger(label: "tonearm-test") { _ in SwiftLogNoOpLogHandler() }
        self.logger = logger
        let idleBus = IdleBus()
        let metadataTags = TagMask(metadataToUse: configuration.metadataToUse)
        let decoders = DecoderCatalog(plugin: "ffmpeg", suffixes: ["flac", "mp3"], mimeTypes: ["audio/flac"])
        let library =
            withLibrary
            ? try Library(
                settings: Library.Settings(
                    musicDirectory: configuration.musicDirectory, databasePath: configuration.dbFile,
                    songSuffixes: Set(decoders.suffixes), tagMask: metadataTags),
                logger: logger
            ) { event in idleBus.emit(libraryEvent: event) } : nil
        let pipelines = PartitionPipelines(defaultPipeline: PacedNullPipeline(hasMixer: hasMixer)) {
            PacedNullPipeline()
        }
        context = ServerContext(
            configuration: configuration, idleBus: idleBus, metadataTags: metadataTags, decoders: decoders,
            library: library, stickers: nil, playStatistics: nil, pipelines: pipelines, logger: logger)
        context.onShutdownRequest { [weak self] in self?.shutdowns.withLock { $0 += 1 } }
    }

    /// Where idle events are raised.
    package var idleBus: IdleBus { context.idleBus }

    /// How many times a client asked the server to stop (`kill`).
    package var shutdownRequests: Int { shutdowns.withLock { $0 } }

    /// Deletes the temporary directory of the library, if there is one.
    package func removeFiles() {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }
}
