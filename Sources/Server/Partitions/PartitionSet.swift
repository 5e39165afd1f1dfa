package import MPDProtocol
import MusicModel
package import Platform
import Playback
import Synchronization

/// The server's partitions (MPD's `Instance::partitions`): `default` first, then those made
/// by `partition` blocks, `newpartition` or the state file, in the order they were made.
///
/// Looking a partition up is quick and concurrent. Every change to the set — adding,
/// deleting, a client joining, an output moving — runs on one queue (``changes``), one at a
/// time, so that `delpartition` sees the clients and outputs a partition really has. The
/// callers are sessions on their event loops, which await the change instead of running it:
/// moving an output waits (up to ``DecodingPipeline/detachTimeout``) for the output thread
/// that holds the device to let it go, and no event loop may wait for a thread
/// (docs/internals.md, Concurrency).
package final class PartitionSet: Sendable {
    /// MPD's limit on `newpartition` ("arbitrary limit for now").
    package static let maximumCount = 16

    /// Builds a partition that holds no output: the player, its pipeline over the shared
    /// devices, its idle events routed to its clients.
    package typealias Factory = @Sendable (_ name: String) -> Partition

    private let partitions: Mutex<[Partition]>
    /// Where every change runs, one at a time, off the caller's event loop. A move waits here
    /// while an output thread lets its device go; the lookups, which take only `partitions`'
    /// lock, never wait for it.
    package let changes = BlockingWorkQueue(label: "tonearm.partitions")
    private let idleBus: IdleBus
    private let make: Factory

    /// Creates the set with its default partition and the partitions of the configuration's
    /// `partition` blocks, made at once, before any client connects, as MPD makes them.
    /// - Parameter refused: told of each configured name that `newpartition` would refuse,
    ///   with the error it would give (the name is left out).
    package init(
        default first: Partition, configured names: [String] = [], idleBus: IdleBus, make: @escaping Factory,
        refused: (String, MPDError) -> Void = { _, _ in }
    ) {
        partitions = Mutex([first])
        self.idleBus = idleBus
        self.make = make
        for name in names {
            do {
                try add(name)
            } catch {
                refused(name, error)
            }
        }
    }

    /// Every partition, `default` first.
    package var all: [Partition] { partitions.withLock { $0 } }

    /// The `default` partition.
    package var defaultPartition: Partition { partitions.withLock { $0[0] } }

    /// The partition called `name`, if there is one.
    package func named(_ name: String) -> Partition? {
        partitions.withLock { list in list.first { $0.name == name } }
    }

    /// MPD's `IsValidPartitionName`: one or more of `A-Z a-z 0-9 _ -`.
    package static func isValidName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    true
                default:
                    false
                }
            }
    }

    /// `newpartition NAME`, checked in MPD's order; every client sees idle `partition`.
    /// - Throws: ACK 2 `bad name`, ACK 56 `name already exists`, ACK 5 `too many partitions`.
    @discardableResult
    package func create(_ name: String) async throws(MPDError) -> Partition {
        let partition = try await changes.run { [self] () throws(MPDError) in try add(name) }
        idleBus.emit(.partition)
        return partition
    }

    /// Makes partition `name` after `newpartition`'s checks. Runs on ``changes``, or in `init`.
    @discardableResult
    private func add(_ name: String) throws(MPDError) -> Partition {
        guard Self.isValidName(name) else { throw MPDError(.argument, "bad name") }
        guard named(name) == nil else { throw MPDError(.exist, "name already exists") }
        guard all.count < Self.maximumCount else { throw MPDError(.unknown, "too many partitions") }
        let partition = make(name)
        partitions.withLock { $0.append(partition) }
        return partition
    }

    /// `delpartition NAME`, checked in MPD's order; every client sees idle `partition`.
    /// - Throws: ACK 2 `bad name`, ACK 50 `no such partition`, ACK 5 `cannot delete the
    ///   default partition`, `partition still has clients` or `partition still has outputs`.
    package func delete(_ name: String) async throws(MPDError) {
        let removed = try await changes.run { [self] () throws(MPDError) -> Partition in
            guard Self.isValidName(name) else { throw MPDError(.argument, "bad name") }
            guard let partition = named(name) else { throw MPDError(.noExist, "no such partition") }
            guard partition !== defaultPartition else {
                throw MPDError(.unknown, "cannot delete the default partition")
            }
            guard idleBus.clientCount(partition: name) == 0 else {
                throw MPDError(.unknown, "partition still has clients")
            }
            guard partition.heldDevices.isEmpty else { throw MPDError(.unknown, "partition still has outputs") }
            partitions.withLock { $0.removeAll { $0 === partition } }
            return partition
        }
        removed.shutDown()
        idleBus.emit(.partition)
    }

    /// `partition NAME`: moves a client into the partition, which from now on receives its
    /// idle events; marks `playlist player mixer output options` pending for it (without
    /// waking it), so that it reloads what it shows, as MPD does. A client already in that
    /// partition stays, and gets no event (MPD's `Client::SetPartition`): Cantata names its
    /// partition, `default` too, on each of its connections at every start.
    /// - Throws: ACK 50 `partition does not exist`.
    func join(_ name: String, inbox: IdleInbox) async throws(MPDError) {
        let moved = try await changes.run { [self] () throws(MPDError) -> Bool in
            guard named(name) != nil else { throw MPDError(.noExist, "partition does not exist") }
            guard inbox.partition != name else { return false }
            inbox.partition = name
            return true
        }
        if moved { inbox.markPending([.playlist, .player, .mixer, .output, .options]) }
    }

    /// `moveoutput NAME`: the output called `outputName` moves into `destination` from
    /// whichever partition holds it, keeping its enabled state; every client sees idle
    /// `output`. Nothing happens when `destination` holds it already. The output thread that
    /// plays the device lets it go on ``changes``' thread, while the caller awaits.
    /// - Throws: ACK 50 `No such output`; ACK 5 when the output's device would not let go.
    package func moveOutput(named outputName: String, into destination: Partition) async throws(MPDError) {
        let moved = try await changes.run { [self] () throws(MPDError) -> Bool in
            guard let device = destination.pipeline.outputStatuses.firstIndex(where: { $0.name == outputName }) else {
                throw MPDError(.noExist, "No such output")
            }
            if destination.heldDevices.contains(device) { return false }
            guard let source = all.first(where: { $0 !== destination && $0.heldDevices.contains(device) }) else {
                throw MPDError(.noExist, "No such output")
            }
            guard let wasEnabled = source.detach(device: device) else {
                throw MPDError(.unknown, "output \(outputName.mpdQuoted) is busy")
            }
            destination.attach(device: device, enabled: wasEnabled)
            return true
        }
        if moved { idleBus.emit(.output) }
    }
}
