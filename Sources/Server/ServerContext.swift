public import Configuration
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
    /// When the server started, for `stats`' `uptime`.
    public let startTime = ContinuousClock.now
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
        shutdown: @escaping @Sendable () -> Void
    ) {
        self.library = library
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

    /// Asks the server to shut down cleanly.
    public func requestShutdown() { shutdown() }

    /// The permissions a client with `password` gets, or `nil` when no password matches.
    public func permissions(forPassword password: String) -> Permissions? {
        configuration.passwords.first { $0.password == password }?.permissions
    }
}
