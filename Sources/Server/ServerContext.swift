package import Logging
package import MPDProtocol
package import MediaLibrary
package import MusicModel
package import Playback
package import Settings
import Synchronization

/// The services every session shares: configuration, the idle bus, the command table.
package final class ServerContext: Sendable {
    /// The configuration the server runs with.
    package let configuration: TonearmConfiguration
    /// Where idle events are raised.
    package let idleBus: IdleBus
    /// The implemented commands.
    package let commands: CommandTable
    /// The tags the server keeps (`metadata_to_use`); clients see at most these.
    package let metadataTags: TagMask
    /// What the decoder understands, for `decoders`.
    package let decoders: DecoderCatalog
    /// The music database; `nil` when none could be opened (commands answer `No database`).
    package let library: Library?
    /// The sticker database (`sticker_file`); `nil` when none is configured, which hides the
    /// sticker commands as in MPD.
    package let stickers: StickerStore?
    /// The clients' channel subscriptions and message queues (client-to-client messages).
    let channels = ChannelRegistry()
    /// When the server started, for `stats`' `uptime`.
    package let startTime = ContinuousClock.now
    /// The partitions, each with its queue, player, mixer and outputs; `default` first.
    package let partitions: PartitionSet
    /// The stored playlists in `playlist_directory`; changes raise idle `stored_playlist`.
    package let storedPlaylists: StoredPlaylists
    /// The smart playlists, `.smartpl` files beside the stored ones, whose rules choose their songs.
    package let smartPlaylists: SmartPlaylistCatalog
    /// The clients that keep the play statistics themselves, shared with ``PlayStatistics``.
    package let playCountingClients: PlayCountingClients
    /// What `kill` runs: set by ``TonearmServer`` (or a test) once the context exists, as the
    /// server that the context is part of is made after it.
    private let shutdownHandler = Mutex<(@Sendable () -> Void)?>(nil)

    /// Creates the shared context from parts made elsewhere (`tonearm` puts the server
    /// together; see docs/architecture.md).
    /// - Parameters:
    ///   - metadataTags: `metadata_to_use` as a mask.
    ///   - library: the music database, if one could be opened.
    ///   - stickers: the sticker database (`sticker_file`), if there is one.
    ///   - partitions: the partitions, their players driving their pipelines.
    ///   - storedPlaylists: the playlists in `playlist_directory`.
    ///   - smartPlaylists: the smart playlists, over the same files.
    ///   - playCountingClients: the clients that count plays themselves; ``PlayStatistics``
    ///     reads it.
    package init(
        configuration: TonearmConfiguration,
        idleBus: IdleBus,
        commands: CommandTable = .standard,
        metadataTags: TagMask,
        decoders: DecoderCatalog,
        library: Library?,
        stickers: StickerStore?,
        partitions: PartitionSet,
        storedPlaylists: StoredPlaylists,
        smartPlaylists: SmartPlaylistCatalog,
        playCountingClients: PlayCountingClients = PlayCountingClients()
    ) {
        self.configuration = configuration
        self.idleBus = idleBus
        self.commands = commands
        self.metadataTags = metadataTags
        self.decoders = decoders
        self.library = library
        self.stickers = stickers
        self.partitions = partitions
        self.storedPlaylists = storedPlaylists
        self.smartPlaylists = smartPlaylists
        self.playCountingClients = playCountingClients
    }

    /// The library, or `ACK 50 No database` when the server has none.
    package func requireLibrary() throws(MPDError) -> Library {
        guard let library else { throw MPDError(.noExist, "No database") }
        return library
    }

    /// The sticker database, or MPD's `ACK 5 sticker database is disabled` without one.
    package func requireStickers() throws(MPDError) -> StickerStore {
        guard let stickers else { throw MPDError(.unknown, "sticker database is disabled") }
        return stickers
    }

    /// The partition a session is in (`default` should it be gone, which `delpartition`
    /// prevents while the partition has clients).
    package func partition(for session: SessionState) -> Partition {
        partitions.named(session.partition) ?? partitions.defaultPartition
    }

    /// The player of the partition a session is in.
    package func player(for session: SessionState) -> PlayerController { partition(for: session).player }

    /// The default partition's player.
    package var player: PlayerController { partitions.defaultPartition.player }

    /// Asks the server to shut down cleanly (`kill`).
    package func requestShutdown() {
        let handler = shutdownHandler.withLock { $0 }
        handler?()
    }

    /// Sets what ``requestShutdown()`` runs.
    package func onShutdownRequest(_ handler: @escaping @Sendable () -> Void) {
        shutdownHandler.withLock { $0 = handler }
    }

    /// The permissions a client with `password` gets, or `nil` when no password matches.
    package func permissions(forPassword password: String) -> Permissions? {
        configuration.passwords.first { $0.password == password }?.permissions
    }
}

extension ServerContext {
    /// A context whose partitions and stored playlists follow the configuration
    /// (``PartitionSet/init(configuration:pipelines:library:idleBus:playStatistics:logger:)``),
    /// the partitions playing through `pipelines`: how `tonearm` and the tests alike make one.
    /// - Parameter playStatistics: receives the songs the players played, when
    ///   `sticker_play_stats` is on.
    package convenience init(
        configuration: TonearmConfiguration,
        idleBus: IdleBus,
        metadataTags: TagMask,
        decoders: DecoderCatalog,
        library: Library?,
        stickers: StickerStore?,
        playStatistics: PlayStatistics?,
        pipelines: PartitionPipelines,
        logger: Logger
    ) {
        let storedPlaylists = StoredPlaylists(configuration: configuration, library: library, idleBus: idleBus)
        self.init(
            configuration: configuration, idleBus: idleBus, metadataTags: metadataTags, decoders: decoders,
            library: library, stickers: stickers,
            partitions: PartitionSet(
                configuration: configuration, pipelines: pipelines, library: library, idleBus: idleBus,
                playStatistics: playStatistics, logger: logger),
            storedPlaylists: storedPlaylists,
            smartPlaylists: SmartPlaylistCatalog(
                store: storedPlaylists, library: library, stickers: stickers, logger: logger),
            playCountingClients: playStatistics?.countingClients ?? PlayCountingClients())
    }
}
