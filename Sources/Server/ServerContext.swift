public import Configuration
public import Logging
public import MPDProtocol
public import Playback
public import MediaLibrary

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
    public let library: MediaLibrary?
    /// The sticker database (`sticker_file`); `nil` when none is configured, which hides the
    /// sticker commands as in MPD.
    public let stickers: StickerStore?
    /// The clients' channel subscriptions and message queues (client-to-client messages).
    let channels = ChannelRegistry()
    /// Keeps `playCount`, `lastPlayed` and `skipCount` (`sticker_play_stats`), when on.
    let playStatistics: PlayStatistics?
    /// When the server started, for `stats`' `uptime`.
    public let startTime = ContinuousClock.now
    /// The default partition's player: its queue, playback and volume.
    public let player: PlayerController
    /// The stored playlists in `playlist_directory`; changes raise idle `stored_playlist`.
    public let storedPlaylists: StoredPlaylists
    /// The audio outputs (`outputs`, `enableoutput`, …); `nil` when the player runs on the
    /// clock-paced stand-in without devices (unit tests).
    public let outputs: (any AudioOutputControl)?
    private let shutdown: @Sendable () -> Void

    /// Creates the shared context.
    /// - Parameter shutdown: stops the whole server, as `kill` asks.
    public init(
        configuration: TonearmConfiguration,
        idleBus: IdleBus = IdleBus(),
        commands: CommandTable = .standard,
        metadataTags: TagMask = .defaultMetadata,
        decoders: DecoderCatalog,
        library: MediaLibrary? = nil,
        stickers: StickerStore? = nil,
        audio: DecodingPipeline? = nil,
        logger: Logger = Logger(label: "tonearm"),
        shutdown: @escaping @Sendable () -> Void
    ) {
        self.library = library
        self.stickers = stickers
        outputs = audio
        let musicDirectory = configuration.musicDirectory
        let statistics = configuration.stickerPlayStats
            ? stickers.map { PlayStatistics(stickers: $0, idleBus: idleBus, logger: logger) } : nil
        playStatistics = statistics
        player = PlayerController(
            maximumLength: configuration.maxPlaylistLength,
            pipeline: audio ?? PacedNullPipeline(),
            hasMixer: audio?.hasMixer ?? Self.hasMixer(configuration),
            replayGainMode: configuration.replayGain,
            path: { uri in library?.absolutePath(of: uri) ?? musicDirectory + "/" + uri },
            notify: { [idleBus] events in idleBus.emit(events, partition: "default") },
            listened: { listening in statistics?.record(listening) }
        )
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
    public func requireLibrary() throws(MPDError) -> MediaLibrary {
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

    /// The player of the partition a session is in.
    public func player(for session: SessionState) -> PlayerController { player }

    /// Asks the server to shut down cleanly.
    public func requestShutdown() { shutdown() }

    /// The permissions a client with `password` gets, or `nil` when no password matches.
    public func permissions(forPassword password: String) -> Permissions? {
        configuration.passwords.first { $0.password == password }?.permissions
    }
}
