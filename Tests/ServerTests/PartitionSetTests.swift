import MPDProtocol
import Playback
import Settings
import TestSupport
import Testing

@testable import Server

/// The partition registry: names, limits, refusals, and the idle events of its changes.
@Suite struct PartitionSetTests {
    func makeContext(partitions: [String] = []) throws -> ServerContext {
        try TestServer { $0.partitions = partitions }.context
    }

    /// The ACK a change gives, as "CODE message"; `nil` when it succeeds.
    func error(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as MPDError {
            return "\(error.code.rawValue) \(error.message)"
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func namesFollowMPDsRule() {
        #expect(PartitionSet.isValidName("default"))
        #expect(PartitionSet.isValidName("A-b_9"))
        for bad in ["", "a.b", "a b", "ü", "a/b", "a:b"] { #expect(!PartitionSet.isValidName(bad), "\(bad)") }
    }

    @Test func theDefaultComesFirstAndConfiguredOnesFollow() throws {
        let context = try makeContext(partitions: ["kitchen", "bad.name", "kitchen"])
        #expect(context.partitions.all.map(\.name) == ["default", "kitchen"])
        #expect(context.partitions.defaultPartition.name == "default")
        #expect(context.partitions.named("kitchen")?.player.partition == "kitchen")
    }

    @Test func createChecksNameThenDuplicateThenLimit() throws {
        let set = try makeContext().partitions
        #expect(error { try set.create("a.b") } == "2 bad name")
        #expect(error { try set.create("default") } == "56 name already exists")
        for number in 1..<PartitionSet.maximumCount { #expect(error { try set.create("p\(number)") } == nil) }
        #expect(error { try set.create("one-more") } == "5 too many partitions")
        #expect(error { try set.create("p1") } == "56 name already exists")
        #expect(set.all.count == PartitionSet.maximumCount)
    }

    @Test func deleteRefusesTheDefaultTheUnknownAndOccupiedOnes() throws {
        let context = try makeContext()
        let set = context.partitions
        try set.create("x")
        #expect(error { try set.delete("default") } == "5 cannot delete the default partition")
        #expect(error { try set.delete("nope") } == "50 no such partition")
        #expect(error { try set.delete("no.pe") } == "2 bad name")
        let inbox = IdleInbox(wake: {})
        context.idleBus.register(inbox)
        try set.join("x", inbox: inbox)
        #expect(error { try set.delete("x") } == "5 partition still has clients")
        try set.join("default", inbox: inbox)
        #expect(error { try set.delete("x") } == nil)
        #expect(set.all.map(\.name) == ["default"])
        #expect(error { try set.join("x", inbox: inbox) } == "50 partition does not exist")
    }

    @Test func changesRaisePartitionForEveryoneAndJoiningMarksTheStatePending() throws {
        let context = try makeContext()
        let watcher = IdleInbox(wake: {})
        let mover = IdleInbox(wake: {})
        context.idleBus.register(watcher)
        context.idleBus.register(mover)
        try context.partitions.create("x")
        #expect(watcher.collect(.all) == .partition)
        try context.partitions.join("x", inbox: mover)
        #expect(mover.collect(.all) == [.partition, .playlist, .player, .mixer, .output, .options])
        try context.partitions.join("default", inbox: mover)
        try context.partitions.delete("x")
        #expect(watcher.collect(.all) == .partition)
        _ = error { try context.partitions.create("b.ad") }
        #expect(watcher.collect(.all) == [])
    }

    @Test func eachPartitionHasItsOwnPlayerAndEventsStayInIt() throws {
        let context = try makeContext()
        let x = try context.partitions.create("x")
        let inDefault = IdleInbox(wake: {})
        let inX = IdleInbox(wake: {})
        context.idleBus.register(inDefault)
        context.idleBus.register(inX)
        try context.partitions.join("x", inbox: inX)
        _ = inX.collect(.all)
        x.player.setRepeat(true)
        #expect(context.partitions.defaultPartition.player !== x.player)
        #expect(inX.collect(.all) == .options)
        #expect(inDefault.collect(.all) == [])
        #expect(context.player.status.repeatMode == false)
    }

    @Test func withoutDevicesThereIsNoOutputToMove() throws {
        let context = try makeContext()
        #expect(
            error { try context.partitions.moveOutput(named: "null", into: context.partitions.defaultPartition) }
                == "50 No such output")
        #expect(context.partitions.defaultPartition.outputStatuses.isEmpty)
    }
}
