import MusicModel
import Synchronization
import Testing

@testable import Server

@Suite("Idle inbox and bus")
struct IdleInboxTests {
    /// Counts how often an inbox woke its session.
    private final class WakeCounter: Sendable {
        let count = Atomic<Int>(0)
        func load(ordering _: AtomicLoadOrdering) -> Int { count.load(ordering: .relaxed) }
    }

    /// An inbox that counts its wake-ups.
    private func makeInbox() -> (IdleInbox, WakeCounter) {
        let wakes = WakeCounter()
        return (IdleInbox { wakes.count.add(1, ordering: .relaxed) }, wakes)
    }

    @Test("events collect from the start, before any idle")
    func pendingBeforeIdle() {
        let (inbox, wakes) = makeInbox()
        inbox.post([.player, .mixer])
        #expect(wakes.load(ordering: .relaxed) == 0)
        #expect(inbox.beginWaiting(for: .all) == [.player, .mixer])
        #expect(inbox.beginWaiting(for: .all) == nil)
    }

    @Test("only the subscribed events are consumed (MPD 0.24)")
    func consumesSubscribedOnly() {
        let (inbox, _) = makeInbox()
        inbox.post([.player, .database])
        #expect(inbox.beginWaiting(for: .player) == .player)
        #expect(inbox.beginWaiting(for: .all) == .database)
    }

    @Test("a waiting client is woken once, by a matching event only")
    func wakesOnMatch() {
        let (inbox, wakes) = makeInbox()
        #expect(inbox.beginWaiting(for: .mixer) == nil)
        inbox.post(.player)
        #expect(wakes.load(ordering: .relaxed) == 0)
        inbox.post(.mixer)
        inbox.post(.mixer)
        #expect(wakes.load(ordering: .relaxed) == 1)
        #expect(inbox.collect(.mixer) == .mixer)
        #expect(inbox.collect(.all) == .player)
    }

    @Test("noidle stops waiting and keeps events pending")
    func cancel() {
        let (inbox, wakes) = makeInbox()
        _ = inbox.beginWaiting(for: .player)
        inbox.cancelWaiting()
        inbox.post(.player)
        #expect(wakes.load(ordering: .relaxed) == 0)
        #expect(inbox.beginWaiting(for: .player) == .player)
    }

    @Test("the bus reaches every inbox, or one partition's")
    func bus() {
        let bus = IdleBus()
        let (first, _) = makeInbox()
        let (second, _) = makeInbox()
        second.partition = "kitchen"
        bus.register(first)
        bus.register(second)
        #expect(bus.count == 2)
        bus.emit(.database)
        bus.emit(.player, partition: "kitchen")
        #expect(first.collect(.all) == .database)
        #expect(second.collect(.all) == [.database, .player])
        bus.unregister(first)
        bus.emit(.update)
        #expect(first.collect(.all) == [])
        #expect(bus.count == 1)
    }

    @Test("an observer hears the events it follows, for everyone, after a command list's end")
    func observers() {
        let bus = IdleBus()
        let calls = Atomic<Int>(0)
        bus.observe([.database, .sticker]) { calls.add(1, ordering: .relaxed) }
        bus.emit(.player)
        bus.emit(.storedPlaylist)
        bus.emit([.mixer], partition: "default")
        #expect(calls.load(ordering: .relaxed) == 0)
        bus.emit([.sticker, .player])
        bus.emit(.database)
        #expect(calls.load(ordering: .relaxed) == 2)
        // Held while a list runs: one call when it ends.
        bus.beginCommandList()
        bus.emit(.sticker)
        bus.emit(.sticker)
        #expect(calls.load(ordering: .relaxed) == 2)
        bus.endCommandList()
        #expect(calls.load(ordering: .relaxed) == 3)
    }
}
