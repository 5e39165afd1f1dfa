import MPDProtocol
import MusicModel
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
    func error(_ body: () async throws -> Void) async -> String? {
        do {
            try await body()
            return nil
        } catch let error as MPDError {
            return "\(error.code.rawValue) \(error.message)"
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test func namesFollowMPDsRule() async {
        #expect(PartitionSet.isValidName("default"))
        #expect(PartitionSet.isValidName("A-b_9"))
        for bad in ["", "a.b", "a b", "ü", "a/b", "a:b"] { #expect(!PartitionSet.isValidName(bad), "\(bad)") }
    }

    @Test func theDefaultComesFirstAndConfiguredOnesFollow() async throws {
        let context = try makeContext(partitions: ["kitchen", "bad.name", "kitchen"])
        #expect(context.partitions.all.map(\.name) == ["default", "kitchen"])
        #expect(context.partitions.defaultPartition.name == "default")
        #expect(context.partitions.named("kitchen")?.player.partition == "kitchen")
    }

    @Test func createChecksNameThenDuplicateThenLimit() async throws {
        let set = try makeContext().partitions
        #expect(await error { try await set.create("a.b") } == "2 bad name")
        #expect(await error { try await set.create("default") } == "56 name already exists")
        for number in 1..<PartitionSet.maximumCount {
            #expect(await error { try await set.create("p\(number)") } == nil)
        }
        #expect(await error { try await set.create("one-more") } == "5 too many partitions")
        #expect(await error { try await set.create("p1") } == "56 name already exists")
        #expect(set.all.count == PartitionSet.maximumCount)
    }

    @Test func deleteRefusesTheDefaultTheUnknownAndOccupiedOnes() async throws {
        let context = try makeContext()
        let set = context.partitions
        try await set.create("x")
        #expect(await error { try await set.delete("default") } == "5 cannot delete the default partition")
        #expect(await error { try await set.delete("nope") } == "50 no such partition")
        #expect(await error { try await set.delete("no.pe") } == "2 bad name")
        let inbox = IdleInbox(wake: {})
        context.idleBus.register(inbox)
        try await set.join("x", inbox: inbox)
        #expect(await error { try await set.delete("x") } == "5 partition still has clients")
        try await set.join("default", inbox: inbox)
        #expect(await error { try await set.delete("x") } == nil)
        #expect(set.all.map(\.name) == ["default"])
        #expect(await error { try await set.join("x", inbox: inbox) } == "50 partition does not exist")
    }

    @Test func changesRaisePartitionForEveryoneAndJoiningAnotherMarksTheStatePending() async throws {
        let context = try makeContext()
        let watcher = IdleInbox(wake: {})
        let mover = IdleInbox(wake: {})
        context.idleBus.register(watcher)
        context.idleBus.register(mover)
        try await context.partitions.create("x")
        #expect(watcher.collect(.all) == .partition)
        try await context.partitions.join("x", inbox: mover)
        #expect(mover.collect(.all) == [.partition, .playlist, .player, .mixer, .output, .options])
        try await context.partitions.join("x", inbox: mover)
        #expect(mover.collect(.all) == [])
        try await context.partitions.join("default", inbox: mover)
        try await context.partitions.delete("x")
        #expect(watcher.collect(.all) == .partition)
        _ = await error { try await context.partitions.create("b.ad") }
        #expect(watcher.collect(.all) == [])
    }

    @Test func eachPartitionHasItsOwnPlayerAndEventsStayInIt() async throws {
        let context = try makeContext()
        let x = try await context.partitions.create("x")
        let inDefault = IdleInbox(wake: {})
        let inX = IdleInbox(wake: {})
        context.idleBus.register(inDefault)
        context.idleBus.register(inX)
        try await context.partitions.join("x", inbox: inX)
        _ = inX.collect(.all)
        x.player.setRepeat(true)
        #expect(context.partitions.defaultPartition.player !== x.player)
        #expect(inX.collect(.all) == .options)
        #expect(inDefault.collect(.all) == [])
        #expect(context.player.status.repeatMode == false)
    }

    @Test func withoutDevicesThereIsNoOutputToMove() async throws {
        let context = try makeContext()
        #expect(
            await error {
                try await context.partitions.moveOutput(named: "null", into: context.partitions.defaultPartition)
            }
                == "50 No such output")
        #expect(context.partitions.defaultPartition.outputStatuses.isEmpty)
    }
}
