public import Logging
public import MPDProtocol
public import MediaLibrary
public import MusicModel
public import Playback
public import Settings

/// The services every session shares: configuration, the idle bus, the command table.
public final class ServerContext: Sendable {
    /// The configuration the server runs with.
    public let configuration: TonearmConfiguration
    /// Where idle events are raised.
    public let idleBus: IdleBus
    /// The implemented commands.
    public let commands: CommandTable
    /// The tags the server keeps (`metadata_to_use`); clients see at most these.
    public let metadataTags: TagMask
    /// What the decoder understands, for `decoders`.
    public let decoders: DecoderCatalog
    /// The music database; `nil` when none could be opened (commands answer `No database`).
    public let library: Library?
    /// The sticker database (`sticker_file`); `nil` when none is configured, which hides the
    /// sticker commands as in MPD.
    public let stickers: StickerStore?
    /// The clients' channel subscriptions and message queues (client-to-client messages).
    let channels = ChannelRegistry()
    /// Keeps `playCount`, `lastPlayed` and `skipCount` (`sticker_play_stats`), when on.
    let playStatistics: PlayStatistics?
    /// When the server started, for `stats`' `uptime`.
    public let startTime = ContinuousClock.now
    /// The partitions, each with its queue, player, mixer and outputs; `default` first.
    public let partitions: PartitionSet
    /// The stored playlists in `playlist_directory`; changes raise idle `stored_playlist`.
    public let storedPlaylists: StoredPlaylists
    private let shutdown: @Sendable () -> Void

    /// Creates the shared context.
    /// - Parameter shutdown: stops the whole server, as `kill` asks.
    public init(
        configuration: TonearmConfiguration,
        idleBus: IdleBus = IdleBus(),
        commands: CommandTable = .standard,
        metadataTags: TagMask = .defaultMetadata,
        decoders: DecoderCatalog,
        library: Library? = nil,
        stickers: StickerStore? = nil,
        audio: AudioSetup? = nil,
        logger: Logger = Logger(label: "tonearm"),
        shutdown: @escaping @Sendable () -> Void
    ) {
        self.library = library
        self.stickers = stickers
        let musicDirectory = configuration.musicDirectory
        let statistics =
            configuration.stickerPlayStats
            ? stickers.map { PlayStatistics(stickers: $0, idleBus: idleBus, logger: logger) } : nil
        playStatistics = statistics
        // Every partition's player is made alike; only the default one starts with the
        // outputs (a new partition has none until `moveoutput`, as in MPD).
        let makePartition: @Sendable (String, DecodingPipeline?) -> Partition = { name, pipeline in
            let player = PlayerController(
                partition: name,
                maximumLength: configuration.maxPlaylistLength,
                pipeline: pipeline ?? PacedNullPipeline(),
                hasMixer: pipeline?.hasMixer ?? (name == "default" && Self.hasMixer(configuration)),
                replayGainMode: configuration.replayGain,
                path: { uri in library?.absolutePath(of: uri) ?? musicDirectory + "/" + uri },
                notify: { [idleBus] events in idleBus.emit(events, partition: name) },
                listened: { listening in statistics?.record(listening) }
            )
            let devices = name == "default" ? Array((pipeline?.outputStatuses ?? []).indices) : []
            return Partition(name: name, player: player, pipeline: pipeline, devices: devices)
        }
        let defaultPipeline = audio?.pipeline
        // `partition` blocks: made at start, as MPD makes them (bad names are refused the
        // way `newpartition` refuses them).
        partitions = PartitionSet(
            default: makePartition("default", defaultPipeline), configured: configuration.partitions,
            idleBus: idleBus,
            make: { name in makePartition(name, audio.map { audio in audio.makePipeline() }) },
            refused: { name, error in logger.error("partition \(name.mpdQuoted): \(error.message)") })
        storedPlaylists = StoredPlaylists(
            directory: configuration.playlistDirectory,
            maximumLength: configuration.maxPlaylistLength,
            musicDirectory: library?.settings.musicDirectory ?? musicDirectory,
            saveAbsolutePaths: configuration.saveAbsolutePathsInPlaylists,
            onChange: { [idleBus] in idleBus.emit(.storedPlaylist) }
        )
        self.configuration = configuration
        self.idleBus = idleBus
        self.commands = commands
        self.metadataTags = metadataTags
        self.decoders = decoders
        self.shutdown = shutdown
    }

    /// The library, or `ACK 50 No database` when the server has none.
    public func requireLibrary() throws(MPDError) -> Library {
        guard let library else { throw MPDError(.noExist, "No database") }
        return library
    }

    /// The sticker database, or MPD's `ACK 5 sticker database is disabled` without one.
    public func requireStickers() throws(MPDError) -> StickerStore {
        guard let stickers else { throw MPDError(.unknown, "sticker database is disabled") }
        return stickers
    }

    /// Whether volume can be changed without real outputs (the stand-in pipeline): some
    /// enabled output has a software mixer, or is ALSA with a hardware one. MPD's `null`
    /// output has no hardware mixer.
    static func hasMixer(_ configuration: TonearmConfiguration) -> Bool {
        configuration.audioOutputs.contains { output in
            guard output.enabled else { return false }
            switch output.mixerType ?? configuration.mixerType {
            case .software: return true
            case .hardware: return output.type == "alsa"
            case .none, .null: return false
            }
        }
    }

    /// The partition a session is in (`default` should it be gone, which `delpartition`
    /// prevents while the partition has clients).
    public func partition(for session: SessionState) -> Partition {
        partitions.named(session.partition) ?? partitions.defaultPartition
    }

    /// The player of the partition a session is in.
    public func player(for session: SessionState) -> PlayerController { partition(for: session).player }

    /// The default partition's player.
    public var player: PlayerController { partitions.defaultPartition.player }

    /// Asks the server to shut down cleanly.
    public func requestShutdown() { shutdown() }

    /// The permissions a client with `password` gets, or `nil` when no password matches.
    public func permissions(forPassword password: String) -> Permissions? {
        configuration.passwords.first { $0.password == password }?.permissions
    }
}

/// The real audio a server plays through: the default partition's pipeline, and how to make
/// one over the same devices for each new partition.
public struct AudioSetup: Sendable {
    /// The default partition's pipeline, holding every device at start.
    public let pipeline: DecodingPipeline
    /// Makes a pipeline that holds no device (a new partition's).
    public let makePipeline: @Sendable () -> DecodingPipeline

    /// Creates the setup.
    public init(pipeline: DecodingPipeline, makePipeline: @escaping @Sendable () -> DecodingPipeline) {
        self.pipeline = pipeline
        self.makePipeline = makePipeline
    }

    /// The pipelines of the configured `audio_output` blocks, with the FFmpeg decoder.
    /// - Parameter report: receives the outputs that cannot be set up and every playback
    ///   failure: the server's log.
    public static func make(configuration: TonearmConfiguration, report: @escaping @Sendable (String) -> Void)
        -> AudioSetup
    {
        let devices = OutputDevices(configuration: configuration, report: report)
        return AudioSetup(
            pipeline: DecodingPipeline.make(
                devices: devices, attached: true, configuration: configuration, report: report),
            makePipeline: {
                DecodingPipeline.make(devices: devices, attached: false, configuration: configuration, report: report)
            })
    }
}
