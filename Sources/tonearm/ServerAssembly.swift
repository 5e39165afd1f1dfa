import Foundation
import Logging
import MPDProtocol
import MediaLibrary
import MusicModel
import Playback
import Server
import ServiceLifecycle
import Settings
import UnixSignals
import Zeroconf

/// Puts Tonearm together: builds every part once from the settings, hands the server a ready
/// context, and runs the long-lived parts as one service group. Only `tonearm` knows how the
/// parts are put together (docs/internals.md, Assembly); the `Server` module opens no
/// device and builds no pipeline.
struct ServerAssembly {
    /// The settings, with the command line's overrides applied.
    let settings: TonearmConfiguration
    /// The server's log, which every part writes to.
    let logger: Logger
    /// Present when systemd started the server as a `Type=notify` unit.
    let notifier: SystemdNotifier?
    /// The lines logged at start: the files and folders, the outputs, Zeroconf.
    let summary: StartupSummary
    /// Where the log goes; SIGHUP reopens its file.
    let logSink: LogSink

    /// Builds the parts, restores the state file, and serves until SIGTERM, SIGINT or `kill`.
    /// - Throws: when the server cannot listen.
    func run() async throws {
        summary.logFilesAndFolders()
        let decoders = DecoderCatalog.ffmpeg()
        let idleBus = IdleBus()
        let metadataTags = TagMask(metadataToUse: settings.metadataToUse)
        let stickers = openStickers()
        let libraryEvents = LibraryEventRouter(idleBus: idleBus)
        let library = openLibrary(
            decoders: decoders, metadataTags: metadataTags, stickers: stickers, events: libraryEvents)
        let playStatistics =
            settings.stickerPlayStats
            ? stickers.map { PlayStatistics(stickers: $0, idleBus: idleBus, logger: logger) } : nil
        let devices = OutputDevices(configuration: settings) { [logger] problem in logger.error("\(problem)") }
        summary.logOutputsAndZeroconf(outputs: devices.summaries)
        let pipelines = PartitionPipelines.decoding(devices: devices, configuration: settings) { [logger] entry in
            switch entry.severity {
            case .error: logger.error("\(entry.text)")
            case .warning: logger.warning("\(entry.text)")
            case .notice: logger.notice("\(entry.text)")
            case .info: logger.info("\(entry.text)")
            }
        }
        let context = ServerContext(
            configuration: settings, idleBus: idleBus, metadataTags: metadataTags, decoders: decoders,
            library: library, stickers: stickers, playStatistics: playStatistics, pipelines: pipelines, logger: logger)
        libraryEvents.connect(context.partitions)
        if settings.defaultSmartPlaylists {
            SmartPlaylistDefaults.install(into: context.storedPlaylists, withStickers: stickers != nil, logger: logger)
        }
        // Follows `database` and `sticker` from now on, so that no change after the start is missed.
        let smartPlaylists = SmartPlaylistMonitor(catalog: context.smartPlaylists, idleBus: idleBus)
        let (listening, announce) = ZeroconfService.listeningStream()
        // The state file is restored before the group (and so the server) starts.
        let server = TonearmServer(context: context, logger: logger) { [notifier] ports in
            notifier?.notify("READY=1")
            announce(ports)
        }
        var firstScanRunning = false
        if let library {
            do {
                firstScanRunning = try library.updateIfNew()
            } catch {
                logger.error("cannot read the database: \(error)")
            }
        }
        var stateFile: StateFileService?
        if let path = settings.stateFile {
            stateFile = StateFileService(
                path: path, interval: settings.stateFileInterval, restorePaused: settings.restorePaused,
                partitions: context.partitions, library: library, idleBus: idleBus, firstScanRunning: firstScanRunning,
                logger: logger)
            // Restored before the server listens, as MPD does, so no client sees an empty queue;
            // with a new database, once its first scan has found the songs (a move from MPD).
            await stateFile?.restore()
        }
        // After the restore, which reads the queued songs from the database: a reset then
        // leaves the queue as restored. A new database needs no check.
        if let library, !firstScanRunning { library.checkDatabaseInBackground() }
        let autoUpdate = library.flatMap { library in
            settings.autoUpdate
                ? AutoUpdateService(library: library, maxDepth: settings.autoUpdateDepth, logger: logger) : nil
        }
        let zeroconf = zeroconfService(listening: listening)

        // The group starts the services in this order and, on shutdown (SIGTERM, SIGINT, or the
        // server ending after `kill`), stops them in reverse, each once the one stopped before
        // it has returned. Each line says why its service stops where it does.
        let services: [ServiceGroupConfiguration.ServiceConfiguration?] = [
            // Stops last: once no client can change what plays, it writes the songs heard
            // that are still queued.
            playStatistics.map { .init(service: $0) },
            // Stops after all that queues update jobs (the server's `update`, the directory
            // watcher): drops the jobs still waiting.
            library.map { .init(service: UpdateQueueService(updates: $0.updates)) },
            // Writes the file a last time after the server stopped, so it holds every change a
            // client made; MPD, too, writes it once its clients are gone.
            stateFile.map { .init(service: $0) },
            // Stops after the server: no client waits for its events any more.
            .init(service: smartPlaylists),
            // Closes its listeners and every connection. When `kill` ends it, the group
            // stops the others.
            .init(service: server, successTerminationBehavior: .gracefullyShutdownGroup),
            // Stops watching before the server stops: no update starts from the disk meanwhile.
            autoUpdate.map { .init(service: $0) },
            // Withdraws the announcement before the server closes, so that no client finds a
            // server that is going away.
            zeroconf.map { .init(service: $0) },
            // Catches SIGHUP from start to end, so that it never stops the server.
            .init(service: LogReopenService(sink: logSink, logger: logger)),
            // First to hear of the shutdown, so that systemd knows at once (`STOPPING=1`).
            notifier.map { .init(service: $0) },
        ]
        let group = ServiceGroup(
            configuration: .init(
                services: services.compactMap { $0 },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger
            )
        )
        // After every service, the server's sessions included, has stopped: the database is
        // closed so that SQLite folds its WAL back into the file.
        defer {
            if let library, !library.close() {
                logger.notice("an update was still running; the database is recovered at the next start")
            }
        }
        try await group.run()
    }

    /// The Zeroconf announcement when `zeroconf_enabled` is on and the name is valid.
    private func zeroconfService(listening: AsyncStream<[Int]>) -> ZeroconfService? {
        guard settings.zeroconfEnabled else { return nil }
        guard let name = ZeroconfServiceName(template: settings.zeroconfName) else {
            // As MPD: logged, and the server runs unannounced.
            logger.error("invalid zeroconf_name \"\(settings.zeroconfName)\"; the server is not announced")
            return nil
        }
        return ZeroconfService(name: name, listening: listening, logger: logger)
    }

    /// Opens the sticker database when `sticker_file` is set. When it cannot be opened the
    /// server runs without stickers (the sticker commands are then hidden and answer `sticker
    /// database is disabled`); MPD refuses to start instead, which seems too much for an
    /// optional feature.
    private func openStickers() -> StickerStore? {
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
        decoders: DecoderCatalog, metadataTags: TagMask, stickers: StickerStore?, events: LibraryEventRouter
    ) -> Library? {
        var librarySettings = Library.Settings(
            musicDirectory: settings.musicDirectory,
            databasePath: settings.dbFile,
            songSuffixes: Set(decoders.suffixes),
            tagMask: metadataTags
        )
        librarySettings.followInsideSymlinks = settings.followInsideSymlinks
        librarySettings.followOutsideSymlinks = settings.followOutsideSymlinks
        librarySettings.albumArtNames = settings.albumArtNames
        librarySettings.updateGuard = settings.updateGuard
        // For the tests only (docs/configuration.md, "Update progress"): progress lines without
        // a library big enough to take five seconds.
        if let value = ProcessInfo.processInfo.environment["TONEARM_SCAN_PROGRESS_INTERVAL"],
            let seconds = Double(value), seconds >= 0
        {
            librarySettings.scanProgressInterval = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        do {
            // A filter sticker is named by its filter in MPD's syntax, which only the protocol
            // reads.
            let parseFilterSticker: FilterStickerParser = { name in
                try? FilterExpression.parse([name], foldCase: false)
            }
            return try Library(
                settings: librarySettings, stickers: stickers, parseFilterSticker: parseFilterSticker,
                logger: logger
            ) { event in
                events.handle(event)
            }
        } catch {
            logger.error("cannot open the database \(settings.dbFile): \(error)")
            return nil
        }
    }
}
