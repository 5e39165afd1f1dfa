package import MusicModel
import Synchronization

/// Carries idle events from every part of the server to the connected clients.
///
/// Each session owns an ``IdleInbox``. An event is ORed into the pending set of every inbox
/// that should see it, from the moment the client connected, whether or not it is idling
/// (MPD's `Client::idle_flags`). Raising an event never blocks and may happen on any thread.
package final class IdleBus: Sendable {
    /// Events raised while a command list runs, delivered when the last one running ends.
    private struct Held {
        var lists = 0
        var everyone: IdleSubsystems = []
        var byPartition: [String: IdleSubsystems] = [:]
    }

    private let inboxes = Mutex<[ObjectIdentifier: IdleInbox]>([:])
    private let held = Mutex(Held())
    private let observers = Mutex<[(subsystems: IdleSubsystems, handler: @Sendable () -> Void)]>([])

    /// Creates an empty bus.
    package init() {}

    /// Raises `subsystems` for every connected client.
    package func emit(_ subsystems: IdleSubsystems) {
        guard !subsystems.isEmpty else { return }
        let holding = held.withLock { held in
            if held.lists > 0 { held.everyone.formUnion(subsystems) }
            return held.lists > 0
        }
        guard !holding else { return }
        let targets = inboxes.withLock { Array($0.values) }
        for inbox in targets { inbox.post(subsystems) }
        notifyObservers(subsystems)
    }

    /// Calls `handler` whenever one of `subsystems` is raised, for every client or for one
    /// partition's, from the thread that raises it: the server's own parts follow the clients'
    /// events this way (the smart playlists follow `database` and `sticker`, the state file
    /// every partition's player). The handler must return at once.
    package func observe(_ subsystems: IdleSubsystems, _ handler: @escaping @Sendable () -> Void) {
        observers.withLock { $0.append((subsystems, handler)) }
    }

    /// Raises `subsystems` for the clients of one partition only.
    package func emit(_ subsystems: IdleSubsystems, partition: String) {
        guard !subsystems.isEmpty else { return }
        let holding = held.withLock { held in
            if held.lists > 0 { held.byPartition[partition, default: []].formUnion(subsystems) }
            return held.lists > 0
        }
        guard !holding else { return }
        let targets = inboxes.withLock { Array($0.values) }
        for inbox in targets where inbox.partition == partition { inbox.post(subsystems) }
        notifyObservers(subsystems)
    }

    private func notifyObservers(_ subsystems: IdleSubsystems) {
        let handlers = observers.withLock { $0.filter { !$0.subsystems.isDisjoint(with: subsystems) } }
        for observer in handlers { observer.handler() }
    }

    /// Holds the events raised until the matching ``endCommandList()``, so that a command list
    /// is one change to the clients that idle: MPD runs a list to its end before it tells them,
    /// and a client that adds an album song by song in a list then fetches the queue's changes
    /// once, not once per song. Lists of several clients that overlap deliver when the last ends.
    func beginCommandList() {
        held.withLock { $0.lists += 1 }
    }

    /// Ends a ``beginCommandList()`` and, with the last, delivers what was held.
    func endCommandList() {
        let release: Held? = held.withLock { held in
            held.lists -= 1
            guard held.lists == 0 else { return nil }
            defer { held = Held() }
            return held
        }
        guard let release else { return }
        emit(release.everyone)
        for (partition, subsystems) in release.byPartition { emit(subsystems, partition: partition) }
    }

    /// Connects a new inbox; it receives events until ``unregister(_:)``.
    func register(_ inbox: IdleInbox) {
        _ = inboxes.withLock { $0.updateValue(inbox, forKey: ObjectIdentifier(inbox)) }
    }

    /// Disconnects an inbox.
    func unregister(_ inbox: IdleInbox) {
        _ = inboxes.withLock { $0.removeValue(forKey: ObjectIdentifier(inbox)) }
    }

    /// The number of connected inboxes.
    var count: Int { inboxes.withLock { $0.count } }

    /// The number of connected clients in `partition` (`delpartition` refuses while any is).
    func clientCount(partition: String) -> Int {
        inboxes.withLock { $0.values.filter { $0.partition == partition }.count }
    }
}

/// The idle events waiting for one client, and the wake-up of that client while it idles.
final class IdleInbox: Sendable {
    private struct State {
        var pending: IdleSubsystems = []
        var waitingFor: IdleSubsystems = []
        var partition = "default"
    }

    private let state = Mutex(State())
    private let wake: @Sendable () -> Void

    /// Creates an inbox.
    /// - Parameter wake: called (from any thread) when an event arrives that the idling client
    ///   waits for; the session then collects it with ``collect(_:)``.
    init(wake: @escaping @Sendable () -> Void) {
        self.wake = wake
    }

    /// The partition whose events this client receives.
    var partition: String {
        get { state.withLock { $0.partition } }
        set { state.withLock { $0.partition = newValue } }
    }

    /// Adds events; wakes the session if it waits for one of them.
    func post(_ subsystems: IdleSubsystems) {
        let shouldWake = state.withLock { state -> Bool in
            state.pending.formUnion(subsystems)
            guard !state.waitingFor.intersection(subsystems).isEmpty else { return false }
            // One wake per idle: the session re-arms by calling `beginWaiting` again.
            state.waitingFor = []
            return true
        }
        if shouldWake { wake() }
    }

    /// Starts an `idle` for `mask`.
    /// - Returns: the events already pending for `mask` (now consumed), or `nil` when the client
    ///   has to wait; in that case the next matching ``post(_:)`` wakes it.
    func beginWaiting(for mask: IdleSubsystems) -> IdleSubsystems? {
        state.withLock { state in
            let ready = state.pending.intersection(mask)
            if ready.isEmpty {
                state.waitingFor = mask
                return nil
            }
            state.pending.subtract(ready)
            return ready
        }
    }

    /// Takes the pending events in `mask`, leaving the others pending (MPD 0.24 consumes only
    /// the subscribed flags), and stops waiting.
    func collect(_ mask: IdleSubsystems) -> IdleSubsystems {
        state.withLock { state in
            let ready = state.pending.intersection(mask)
            state.pending.subtract(ready)
            state.waitingFor = []
            return ready
        }
    }

    /// Stops waiting without taking anything (`noidle`).
    func cancelWaiting() {
        state.withLock { $0.waitingFor = [] }
    }

    /// Marks `subsystems` pending without waking anyone: what `partition` does so that the
    /// client reloads the state of its new partition.
    func markPending(_ subsystems: IdleSubsystems) {
        state.withLock { $0.pending.formUnion(subsystems) }
    }
}
