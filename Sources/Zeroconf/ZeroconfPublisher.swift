import CAvahi
package import Logging
import Synchronization

/// Announces the server as `_mpd._tcp` on the LAN through avahi-daemon, for as long as it runs.
///
/// It runs Avahi's threaded poll: one thread of Avahi's own, on which every callback arrives.
/// Nothing here ever blocks the caller on D-Bus: even the first connection is made on that
/// thread. When there is no D-Bus or no daemon it logs that once, retries in the background,
/// and publishes as soon as the daemon is there; when the daemon restarts it publishes again;
/// when the name is taken it picks Avahi's alternative (`Name #2`).
///
/// Sendable because every mutable property is touched only on Avahi's thread (its callbacks
/// run with the poll's lock held) or, from other threads, between `avahi_threaded_poll_lock`
/// and `avahi_threaded_poll_unlock`, or after the thread has been joined in ``stop()``.
package final class ZeroconfPublisher: @unchecked Sendable {
    private let poll: OpaquePointer
    private let logger: Logger
    private let retryMilliseconds: UInt32
    private let lifecycle = Mutex<Phase>(.created)

    // Guarded by the poll's lock, as described above.
    private var machine: PublicationMachine
    private var client: OpaquePointer?
    private var group: OpaquePointer?
    private var retryTimer: OpaquePointer?

    private enum Phase { case created, running, stopped }

    /// Prepares a publisher; nothing is announced before ``start()``.
    /// - Parameters:
    ///   - name: the service name (`zeroconf_name`, expanded).
    ///   - port: the TCP port the server listens on.
    ///   - retryInterval: how long to wait before connecting again when there is no D-Bus.
    /// - Returns: nil when Avahi cannot create its poll thread's resources.
    package init?(name: ZeroconfServiceName, port: UInt16, logger: Logger, retryInterval: Duration = .seconds(3)) {
        guard let poll = avahi_threaded_poll_new() else { return nil }
        self.poll = poll
        self.logger = logger
        let (seconds, attoseconds) = retryInterval.components
        retryMilliseconds = UInt32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        machine = PublicationMachine(name: name.value, port: port)
    }

    deinit {
        stop()
        avahi_threaded_poll_free(poll)
    }

    /// Starts Avahi's thread, which connects and publishes. Returns at once.
    package func start() {
        // Under the lifecycle lock, so a concurrent stop() waits for a complete start.
        lifecycle.withLock { phase in
            guard phase == .created else { return }
            // The timer exists before the thread runs, so the poll's lock is not needed yet;
            // firing at once, it makes the first connection on Avahi's thread.
            retryTimer = pollAPI.pointee.timeout_new(
                pollAPI, nil,
                { _, userdata in
                    guard let userdata else { return }
                    Unmanaged<ZeroconfPublisher>.fromOpaque(userdata).takeUnretainedValue().handle(.retryDue)
                }, context)
            armRetry(milliseconds: 0)
            if avahi_threaded_poll_start(poll) < 0 {
                logger.error("cannot start Avahi's thread; the server is not announced")
                releaseAvahi()
                phase = .stopped
            } else {
                phase = .running
            }
        }
    }

    /// Withdraws the announcement and stops Avahi's thread. Never call it from an Avahi
    /// callback (it joins that thread).
    package func stop() {
        let withdrawn: Bool = lifecycle.withLock { phase in
            defer { phase = .stopped }
            guard phase == .running else { return false }
            avahi_threaded_poll_stop(poll)
            // Avahi's thread is joined: its state is this thread's now.
            let announced = machine.isPublished
            releaseAvahi()
            return announced
        }
        if withdrawn { logger.info("announcement withdrawn") }
    }

    // MARK: Avahi's thread

    private var pollAPI: UnsafePointer<AvahiPoll> { avahi_threaded_poll_get(poll) }
    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Frees the client (withdrawing the service: the daemon drops a departed client's groups),
    /// then the timer. Only once Avahi's thread is stopped or was never started.
    private func releaseAvahi() {
        if let client { avahi_client_free(client) }
        client = nil
        group = nil
        if let retryTimer { pollAPI.pointee.timeout_free(retryTimer) }
        retryTimer = nil
    }

    /// Feeds the machine and performs what it answers; runs on Avahi's thread.
    private func handle(_ event: PublicationMachine.Event) {
        for action in machine.handle(event) { perform(action) }
    }

    private func perform(_ action: PublicationMachine.Action) {
        switch action {
        case .connect: connect()
        case .disconnect:
            if let client { avahi_client_free(client) }
            client = nil
            group = nil
        case .publish(let name): publish(name)
        case .withdraw:
            if let group { avahi_entry_group_reset(group) }
        case .scheduleRetry: armRetry(milliseconds: retryMilliseconds)
        case .log(let level, let message):
            switch level {
            case .debug: logger.debug("\(message)")
            case .notice: logger.notice("\(message)")
            case .warning: logger.warning("\(message)")
            case .error: logger.error("\(message)")
            }
        }
    }

    private func armRetry(milliseconds: UInt32) {
        guard let retryTimer else { return }
        var when = timeval()
        avahi_elapse_time(&when, milliseconds, 0)
        pollAPI.pointee.timeout_update(retryTimer, &when)
    }

    private func connect() {
        var error: Int32 = 0
        // The callback may run inside avahi_client_new, before it returns the client: it
        // adopts the client it is given.
        let created = avahi_client_new(
            pollAPI, AVAHI_CLIENT_NO_FAIL,
            { client, state, userdata in
                guard let client, let userdata else { return }
                Unmanaged<ZeroconfPublisher>.fromOpaque(userdata).takeUnretainedValue().clientChanged(client, state)
            }, context, &error)
        if let created {
            client = created
        } else {
            client = nil
            group = nil
            handle(.connectFailed(reason: Self.describe(error)))
        }
    }

    private func clientChanged(_ changed: OpaquePointer, _ state: AvahiClientState) {
        if client == nil { client = changed }
        guard changed == client else { return }
        switch state {
        case AVAHI_CLIENT_S_RUNNING: handle(.daemonRunning)
        case AVAHI_CLIENT_S_REGISTERING, AVAHI_CLIENT_S_COLLISION: handle(.daemonRegistering)
        case AVAHI_CLIENT_CONNECTING: handle(.daemonAbsent)
        case AVAHI_CLIENT_FAILURE:
            let error = avahi_client_errno(changed)
            handle(.clientFailed(reason: Self.describe(error), disconnected: error == Int32(AVAHI_ERR_DISCONNECTED)))
        default: break
        }
    }

    private func groupChanged(_ changed: OpaquePointer, _ state: AvahiEntryGroupState) {
        guard changed == group else { return }
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED: handle(.established)
        case AVAHI_ENTRY_GROUP_COLLISION: handle(.nameCollision(byThisHost: false))
        case AVAHI_ENTRY_GROUP_FAILURE:
            let reason = client.map { Self.describe(avahi_client_errno($0)) } ?? "no client"
            handle(.publishFailed(reason: reason))
        default: break
        }
    }

    /// Puts the service in the entry group (made on first use, emptied if it held an older
    /// name) and commits it.
    private func publish(_ name: String) {
        guard let client else { return }
        if group == nil {
            group = avahi_entry_group_new(
                client,
                { group, state, userdata in
                    guard let group, let userdata else { return }
                    Unmanaged<ZeroconfPublisher>.fromOpaque(userdata).takeUnretainedValue().groupChanged(group, state)
                }, context)
        } else if let group, avahi_entry_group_is_empty(group) == 0 {
            avahi_entry_group_reset(group)
        }
        guard let group else {
            return handle(.publishFailed(reason: Self.describe(avahi_client_errno(client))))
        }
        // MPD's record: every interface, IPv4 and IPv6, no TXT record, the default domain and host.
        let added = avahi_entry_group_add_service_strlst(
            group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC), AvahiPublishFlags(0),
            name, PublicationMachine.serviceType, nil, nil, machine.port, nil)
        if added == Int32(AVAHI_ERR_COLLISION) { return handle(.nameCollision(byThisHost: true)) }
        if added < 0 { return handle(.publishFailed(reason: Self.describe(added))) }
        let committed = avahi_entry_group_commit(group)
        if committed < 0 { handle(.publishFailed(reason: Self.describe(committed))) }
    }

    /// Avahi's text for an error code, such as `Daemon not running`.
    private static func describe(_ error: Int32) -> String {
        String(cString: avahi_strerror(error))
    }
}
