import CAvahi

/// The publisher's decisions, kept apart from the C calls that carry them out, so that the
/// rules (publish once the daemon runs, publish again after it restarts, rename on a collision,
/// say once per outage that Avahi is away) can be tested without an Avahi daemon.
///
/// ``ZeroconfPublisher`` feeds it what Avahi reports and performs the actions it returns, in
/// order.
struct PublicationMachine: Sendable {
    /// What happened, in terms of Avahi's client and entry-group states.
    enum Event: Equatable, Sendable {
        /// Time to connect: the first attempt, or the retry timer after a failure.
        case retryDue
        /// `avahi_client_new` failed; without a D-Bus system bus it does, even with
        /// `AVAHI_CLIENT_NO_FAIL`.
        case connectFailed(reason: String)
        /// The client waits for avahi-daemon to appear on the bus (`AVAHI_CLIENT_CONNECTING`).
        case daemonAbsent
        /// The daemon runs and owns its host name (`AVAHI_CLIENT_S_RUNNING`).
        case daemonRunning
        /// The daemon registers or lost its host name (`AVAHI_CLIENT_S_REGISTERING`,
        /// `AVAHI_CLIENT_S_COLLISION`): the records must be added again once it runs.
        case daemonRegistering
        /// The client failed (`AVAHI_CLIENT_FAILURE`). `disconnected` when the daemon or the bus
        /// went away (`AVAHI_ERR_DISCONNECTED`): Avahi's client does not reconnect by itself
        /// then, even with `AVAHI_CLIENT_NO_FAIL`.
        case clientFailed(reason: String, disconnected: Bool)
        /// The name is taken: by another service of this host when adding it
        /// (`AVAHI_ERR_COLLISION`), or by another host while probing (`AVAHI_ENTRY_GROUP_COLLISION`).
        case nameCollision(byThisHost: Bool)
        /// The service is announced (`AVAHI_ENTRY_GROUP_ESTABLISHED`).
        case established
        /// Adding or committing the service failed, or the group failed
        /// (`AVAHI_ENTRY_GROUP_FAILURE`).
        case publishFailed(reason: String)
    }

    /// What the publisher does next.
    enum Action: Equatable, Sendable {
        /// Creates a client (`avahi_client_new` with `AVAHI_CLIENT_NO_FAIL`).
        case connect
        /// Frees the client, and with it the entry group.
        case disconnect
        /// Fills the entry group with the service under this name and commits it.
        case publish(name: String)
        /// Empties the entry group (`avahi_entry_group_reset`).
        case withdraw
        /// Arms the retry timer; it reports ``Event/retryDue``.
        case scheduleRetry
        /// Writes a log line.
        case log(LogLevel, String)
    }

    /// How loud a log line is.
    enum LogLevel: Sendable, Equatable {
        case debug, notice, warning, error
    }

    /// The DNS-SD service type MPD announces.
    static let serviceType = "_mpd._tcp"

    /// The name announced now: `zeroconf_name`, or Avahi's alternative after a collision.
    private(set) var name: String
    /// The TCP port announced.
    let port: UInt16
    /// Whether the entry group holds the service (committed or on its way).
    private(set) var isPublished = false
    /// Whether this outage was logged already, so the log says it once, not at every retry.
    private var outageReported = false

    /// A machine that has not connected yet: its first event is ``Event/retryDue``.
    init(name: String, port: UInt16) {
        self.name = name
        self.port = port
    }

    /// The actions that answer `event`, in the order to perform them.
    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .retryDue:
            return [.connect]
        case .connectFailed(let reason):
            return reportOutage(reason) + [
                .log(.debug, "cannot connect to Avahi (\(reason)), retrying"),
                .scheduleRetry,
            ]
        case .daemonAbsent:
            return reportOutage("avahi-daemon is not running")
        case .daemonRunning:
            var actions: [Action] = []
            if outageReported {
                outageReported = false
                actions.append(.log(.notice, "Avahi is available again"))
            }
            if !isPublished {
                isPublished = true
                actions.append(.publish(name: name))
            }
            return actions
        case .daemonRegistering:
            guard isPublished else { return [] }
            isPublished = false
            return [.withdraw]
        case .clientFailed(let reason, let disconnected):
            isPublished = false
            // A fresh NO_FAIL client waits for the daemon to come back on the bus by itself;
            // after another kind of failure, wait a little so a persistent error does not spin.
            return reportOutage(reason) + [.disconnect, disconnected ? .connect : .scheduleRetry]
        case .nameCollision(let byThisHost):
            let previous = name
            name = Self.alternative(to: name)
            let taker = byThisHost ? "by another service on this host" : "on the network"
            return [
                .log(.warning, "the name '\(previous)' is taken \(taker), renaming the service to '\(name)'"),
                .publish(name: name),
            ]
        case .established:
            return [.log(.notice, "announced '\(name)' (\(Self.serviceType), port \(port))")]
        case .publishFailed(let reason):
            // Published again the next time the daemon reports that it runs.
            isPublished = false
            return [.log(.error, "cannot announce '\(name)': \(reason)")]
        }
    }

    /// The warning for an outage, the first time only; the server serves on regardless.
    private mutating func reportOutage(_ reason: String) -> [Action] {
        guard !outageReported else { return [] }
        outageReported = true
        return [
            .log(
                .warning,
                "Avahi is not available (\(reason)); serving without it, retrying in the background")
        ]
    }

    /// Avahi's next name after a collision: `Name` becomes `Name #2`, `Name #2` becomes `Name #3`.
    static func alternative(to name: String) -> String {
        guard let alternative = avahi_alternative_service_name(name) else { return name + " #2" }
        defer { avahi_free(alternative) }
        return String(cString: alternative)
    }
}
