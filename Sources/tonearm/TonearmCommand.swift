import ArgumentParser
import Foundation
import Logging
import MPDProtocol
import MediaLibrary
import MusicModel
import Platform
import Playback
import Server
import ServiceLifecycle
import Settings
import UnixSignals
import Zeroconf

/// `tonearm`: runs the music server in the foreground until SIGTERM, SIGINT or `kill`.
@main
struct TonearmCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tonearm",
        abstract: "A music server for Linux that speaks the MPD protocol.",
        discussion: """
            Reads an mpd.conf-style configuration file, listens for MPD clients (mpc, ncmpcpp, \
            phone apps, python-mpd2 scripts) and serves them until it receives SIGTERM or SIGINT, \
            or a client sends `kill`. Logs go to standard error, one line per event.
            """,
        version: TonearmVersion.description
    )

    @Option(name: .long, help: "The configuration file (mpd.conf syntax).", completion: .file())
    var config: String?

    @Option(name: .long, help: "The TCP port; 0 picks a free one and logs it.")
    var port: Int?

    @Flag(name: .long, help: "Log everything (log_level \"verbose\").")
    var verbose = false

    func validate() throws {
        if let port, !(0...65535).contains(port) {
            throw ValidationError("--port must be between 0 and 65535")
        }
    }

    func run() async throws {
        ProcessMemory.limitArenas(to: 2)
        let loaded: LoadedConfiguration
        do {
            loaded = try ConfigurationLoader(environment: ProcessInfo.processInfo.environment).load(file: config)
        } catch {
            FileHandle.standardError.write(Data("tonearm: \(error)\n".utf8))
            throw ExitCode.failure
        }
        var settings = loaded.configuration
        if let port { settings.port = port }

        let level = verbose ? .debug : Logger.Level(settings.logLevel)
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "tonearm")
        if let file = loaded.file { logger.info("configuration loaded from \(file)") }
        for warning in loaded.warnings { logger.warning("\(warning)") }
        let notifier = SystemdNotifier.fromEnvironment(logger: logger)

        let decoders = DecoderCatalog.ffmpeg()
        let idleBus = IdleBus()
        let stickers = openStickers(settings, logger: logger)
        let library = openLibrary(settings, decoders: decoders, stickers: stickers, idleBus: idleBus, logger: logger)
        let (listening, announce) = ZeroconfService.listeningStream()
        let server = TonearmServer(
            configuration: settings, decoders: decoders, library: library, stickers: stickers, idleBus: idleBus,
            logger: logger,
            // The state file is restored before the group (and so the server) starts.
            onListening: { ports in
                notifier?.notify("READY=1")
                announce(ports)
            }
        )
        var firstScanRunning = false
        if let library {
            do {
                firstScanRunning = try library.updateIfNew()
            } catch {
                logger.error("cannot read the database: \(error)")
            }
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: server, successTerminationBehavior: .gracefullyShutdownGroup)
        ]
        if let stateFile = settings.stateFile {
            let keeper = StateFileService(
                path: stateFile, interval: settings.stateFileInterval, restorePaused: settings.restorePaused,
                partitions: server.context.partitions, library: library, firstScanRunning: firstScanRunning,
                logger: logger)
            // Restored before the server listens, as MPD does, so no client sees an empty queue;
            // with a new database, once its first scan has found the songs (a move from MPD).
            await keeper.restore()
            services.append(.init(service: keeper))
        }
        if let library, settings.autoUpdate {
            // Last in the list, so the group shuts it down first: no update starts while the
            // server stops.
            services.append(
                .init(
                    service: AutoUpdateService(
                        library: library, maxDepth: settings.autoUpdateDepth,
                        logger: logger)))
        }
        if settings.zeroconfEnabled {
            if let name = ZeroconfServiceName(template: settings.zeroconfName) {
                // Late in the list, so the group stops it early: the announcement goes before the
                // server does.
                services.append(.init(service: ZeroconfService(name: name, listening: listening, logger: logger)))
            } else {
                // As MPD: logged, and the server runs unannounced.
                logger.error("invalid zeroconf_name \"\(settings.zeroconfName)\"; the server is not announced")
            }
        }
        if let notifier {
            // Last, so that it hears of the shutdown first and systemd knows at once.
            services.append(.init(service: notifier))
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        try await group.run()
    }
}

/// `auto_update "yes"`: watches the music directory for as long as the service group runs and
/// stops the watcher on graceful shutdown (SIGTERM, SIGINT, `kill`).
private struct AutoUpdateService: Service, CustomStringConvertible {
    let library: Library
    /// `auto_update_depth`; `nil` is no limit.
    let maxDepth: Int?
    let logger: Logger

    /// The name ServiceLifecycle logs.
    var description: String { "AutoUpdate" }

    func run() async throws {
        let watcher: AutoUpdate?
        do {
            watcher = try library.startAutoUpdate(maxDepth: maxDepth)
        } catch {
            // As MPD: the server runs on without auto_update.
            logger.error("auto_update is off: \(error)")
            watcher = nil
        }
        // Returning early would end the whole group; wait for the shutdown either way.
        try? await gracefulShutdown()
        await watcher?.stop()
    }
}

/// Opens the sticker database when `sticker_file` is set. When it cannot be opened the server
/// runs without stickers (the sticker commands are then hidden and answer `sticker database
/// is disabled`); MPD refuses to start instead, which seems too much for an optional feature.
private func openStickers(_ settings: TonearmConfiguration, logger: Logger) -> StickerStore? {
    guard let path = settings.stickerFile else { return nil }
    do {
        return try StickerStore(path: path)
    } catch {
        logger.error("cannot open the sticker database \(path): \(error)")
        return nil
    }
}

/// Opens the music database, or logs why not and runs without one (commands then answer
/// `No database`, as MPD does).
private func openLibrary(
    _ settings: TonearmConfiguration,
    decoders: DecoderCatalog,
    stickers: StickerStore?,
    idleBus: IdleBus,
    logger: Logger
) -> Library? {
    var librarySettings = Library.Settings(
        musicDirectory: settings.musicDirectory,
        databasePath: settings.dbFile,
        songSuffixes: Set(decoders.suffixes),
        tagMask: TagMask(metadataToUse: settings.metadataToUse)
    )
    librarySettings.followInsideSymlinks = settings.followInsideSymlinks
    librarySettings.followOutsideSymlinks = settings.followOutsideSymlinks
    librarySettings.albumArtNames = settings.albumArtNames
    do {
        // A filter sticker is named by its filter in MPD's syntax, which only the protocol reads.
        let parseFilterSticker: FilterStickerParser = { name in try? FilterExpression.parse([name], foldCase: false) }
        return try Library(
            settings: librarySettings, stickers: stickers, parseFilterSticker: parseFilterSticker,
            logger: logger
        ) { event in
            switch event {
            case .update: idleBus.emit(.update)
            case .database: idleBus.emit(.database)
            case .sticker: idleBus.emit(.sticker)
            }
        }
    } catch {
        logger.error("cannot open the database \(settings.dbFile): \(error)")
        return nil
    }
}

extension Logger.Level {
    /// The swift-log level for MPD's `log_level` names.
    init(_ level: LogLevel) {
        switch level {
        case .error: self = .error
        case .warning: self = .warning
        case .notice: self = .notice
        case .info: self = .info
        case .verbose: self = .debug
        }
    }
}

/// What `tonearm --version` prints.
enum TonearmVersion {
    /// The release of this build.
    static let release = "0.1.0"

    /// The version line and the versions of the libraries it plays and announces with.
    static var description: String {
        """
        tonearm \(release) (MPD protocol 0.24.0)
        FFmpeg: libavformat \(FFmpegLibrary.formatVersion), libavcodec \(FFmpegLibrary.codecVersion)
        ALSA: \(ALSALibrary.version)
        """
    }
}
