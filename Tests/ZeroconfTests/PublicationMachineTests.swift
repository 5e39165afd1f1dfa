import Testing

@testable import Zeroconf

/// The publisher's rules, fed Avahi's states the way the daemon reports them.
@Suite("Zeroconf publication rules")
struct PublicationMachineTests {
    private typealias Action = PublicationMachine.Action

    /// The publish actions among `actions`, for tests that ignore the log lines.
    private func published(_ actions: [Action]) -> [String] {
        actions.compactMap { if case .publish(let name) = $0 { name } else { nil } }
    }

    private func warnings(_ actions: [Action]) -> [String] {
        actions.compactMap { if case .log(.warning, let text) = $0 { text } else { nil } }
    }

    @Test("the first connection publishes the name once the daemon runs, and only once")
    func publishesWhenRunning() {
        var machine = PublicationMachine(name: "Tonearm @ den", port: 6600)
        #expect(machine.handle(.retryDue) == [.connect])
        #expect(machine.handle(.daemonRunning) == [.publish(name: "Tonearm @ den")])
        #expect(machine.isPublished)
        // A second RUNNING (after the daemon re-registered nothing) does not add it twice.
        #expect(machine.handle(.daemonRunning) == [])
        #expect(machine.handle(.established) == [.log(.notice, "announced 'Tonearm @ den' (_mpd._tcp, port 6600)")])
    }

    @Test("a host-name change withdraws the service and the next RUNNING publishes it again")
    func republishesAfterRegistering() {
        var machine = PublicationMachine(name: "n", port: 1)
        _ = machine.handle(.daemonRunning)
        #expect(machine.handle(.daemonRegistering) == [.withdraw])
        #expect(machine.handle(.daemonRegistering) == [])
        #expect(published(machine.handle(.daemonRunning)) == ["n"])
    }

    @Test("a daemon restart frees the client, reconnects at once and publishes again")
    func daemonRestart() {
        var machine = PublicationMachine(name: "n", port: 1)
        _ = machine.handle(.daemonRunning)
        let failed = machine.handle(.clientFailed(reason: "Daemon connection failed", disconnected: true))
        #expect(Array(failed.suffix(2)) == [.disconnect, .connect])
        #expect(!machine.isPublished)
        // The new client waits for the daemon, then it is back.
        #expect(warnings(machine.handle(.daemonAbsent)).isEmpty, "the outage was reported already")
        let back = machine.handle(.daemonRunning)
        #expect(back.contains(.log(.notice, "Avahi is available again")))
        #expect(published(back) == ["n"])
    }

    @Test("other client failures wait for the retry timer before connecting again")
    func otherFailureWaits() {
        var machine = PublicationMachine(name: "n", port: 1)
        let failed = machine.handle(.clientFailed(reason: "Access denied", disconnected: false))
        #expect(Array(failed.suffix(2)) == [.disconnect, .scheduleRetry])
        #expect(machine.handle(.retryDue) == [.connect])
    }

    @Test("without D-Bus the outage is logged once, every failed attempt schedules a retry")
    func noBusLogsOnce() {
        var machine = PublicationMachine(name: "n", port: 1)
        var allWarnings: [String] = []
        for _ in 0..<5 {
            #expect(machine.handle(.retryDue) == [.connect])
            let actions = machine.handle(.connectFailed(reason: "Daemon not running"))
            #expect(actions.last == .scheduleRetry)
            allWarnings += warnings(actions)
        }
        #expect(
            allWarnings == [
                "Avahi is not available (Daemon not running); serving without it, retrying in the background"
            ])
        // Once it works and fails again, the new outage is reported again.
        _ = machine.handle(.daemonRunning)
        #expect(
            warnings(machine.handle(.clientFailed(reason: "Daemon connection failed", disconnected: true))).count == 1)
    }

    @Test("a collision renames to Avahi's alternative and publishes that, again and again")
    func collisionRenames() {
        var machine = PublicationMachine(name: "Living room", port: 1)
        _ = machine.handle(.daemonRunning)
        let local = machine.handle(.nameCollision(byThisHost: true))
        #expect(
            local == [
                .log(
                    .warning,
                    "the name 'Living room' is taken by another service on this host, renaming the service to 'Living room #2'"
                ),
                .publish(name: "Living room #2"),
            ])
        let remote = machine.handle(.nameCollision(byThisHost: false))
        #expect(
            remote == [
                .log(
                    .warning,
                    "the name 'Living room #2' is taken on the network, renaming the service to 'Living room #3'"),
                .publish(name: "Living room #3"),
            ])
        #expect(machine.name == "Living room #3")
        // The renamed service keeps its name when the daemon restarts.
        _ = machine.handle(.clientFailed(reason: "gone", disconnected: true))
        #expect(published(machine.handle(.daemonRunning)) == ["Living room #3"])
    }

    @Test("a failed publication is tried again at the next RUNNING")
    func failedPublication() {
        var machine = PublicationMachine(name: "n", port: 1)
        _ = machine.handle(.daemonRunning)
        #expect(machine.handle(.publishFailed(reason: "Bad state")) == [.log(.error, "cannot announce 'n': Bad state")])
        #expect(published(machine.handle(.daemonRunning)) == ["n"])
    }

    @Test("zeroconf_name expands the first %h only and must be a valid DNS-SD name")
    func serviceNames() {
        #expect(ZeroconfServiceName(template: "%h and %h", hostName: "den")?.value == "den and %h")
        #expect(ZeroconfServiceName(template: "Music @ %h", hostName: String(repeating: "h", count: 60)) == nil)
        #expect(ZeroconfServiceName(template: "%h")?.value == ZeroconfServiceName.systemHostName())
        #expect(!ZeroconfServiceName.systemHostName().isEmpty)
    }
}
