public import MPDProtocol
import Playback
import Synchronization

/// The server's partitions (MPD's `Instance::partitions`): `default` first, then those made
/// by `partition` blocks, `newpartition` or the state file, in the order they were made.
///
/// Looking a partition up is quick and concurrent. Every change to the set — adding,
/// deleting, a client joining, an output moving — is serialised by one lock, so that
/// `delpartition` sees the clients and outputs a partition really has.
public final class PartitionSet: Sendable {
    /// MPD's limit on `newpartition` ("arbitrary limit for now").
    public static let maximumCount = 16

    /// Builds a partition that holds no output: the player, its pipeline over the shared
    /// devices, its idle events routed to its clients.
    public typealias Factory = @Sendable (_ name: String) -> Partition

    private let partitions: Mutex<[Partition]>
    /// Serialises changes; held while an output thread lets its device go, which the quick
    /// lookups above must not wait for.
    private let changes = Mutex<Void>(())
    private let idleBus: IdleBus
    private let make: Factory

    /// Creates the set with its default partition.
    public init(default first: Partition, idleBus: IdleBus, make: @escaping Factory) {
        partitions = Mutex([first])
        self.idleBus = idleBus
        self.make = make
    }

    /// Every partition, `default` first.
    public var all: [Partition] { partitions.withLock { $0 } }

    /// The `default` partition.
    public var defaultPartition: Partition { partitions.withLock { $0[0] } }

    /// The partition called `name`, if there is one.
    public func named(_ name: String) -> Partition? {
        partitions.withLock { list in list.first { $0.name == name } }
    }

    /// MPD's `IsValidPartitionName`: one or more of `A-Z a-z 0-9 _ -`.
    public static func isValidName(_ name: String) -> Bool {
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
    public func create(_ name: String) throws(MPDError) -> Partition {
        let created: Result<Partition, MPDError> = changes.withLock { _ in
            guard Self.isValidName(name) else { return .failure(MPDError(.argument, "bad name")) }
            guard named(name) == nil else { return .failure(MPDError(.exist, "name already exists")) }
            guard all.count < Self.maximumCount else { return .failure(MPDError(.unknown, "too many partitions")) }
            let partition = make(name)
            partitions.withLock { $0.append(partition) }
            return .success(partition)
        }
        let partition = try created.get()
        idleBus.emit(.partition)
        return partition
    }

    /// `delpartition NAME`, checked in MPD's order; every client sees idle `partition`.
    /// - Throws: ACK 2 `bad name`, ACK 50 `no such partition`, ACK 5 `cannot delete the
    ///   default partition`, `partition still has clients` or `partition still has outputs`.
    public func delete(_ name: String) throws(MPDError) {
        let removed: Result<Partition, MPDError> = changes.withLock { _ in
            guard Self.isValidName(name) else { return .failure(MPDError(.argument, "bad name")) }
            guard let partition = named(name) else { return .failure(MPDError(.noExist, "no such partition")) }
            guard partition !== defaultPartition else {
                return .failure(MPDError(.unknown, "cannot delete the default partition"))
            }
            guard idleBus.clientCount(partition: name) == 0 else {
                return .failure(MPDError(.unknown, "partition still has clients"))
            }
            guard partition.heldDevices.isEmpty else {
                return .failure(MPDError(.unknown, "partition still has outputs"))
            }
            partitions.withLock { $0.removeAll { $0 === partition } }
            return .success(partition)
        }
        try removed.get().shutDown()
        idleBus.emit(.partition)
    }

    /// `partition NAME`: moves a client into the partition, which from now on receives its
    /// idle events; marks `playlist player mixer output options` pending for it (without
    /// waking it), so that it reloads what it shows, as MPD does.
    /// - Throws: ACK 50 `partition does not exist`.
    func join(_ name: String, inbox: IdleInbox) throws(MPDError) {
        let found = changes.withLock { _ -> Bool in
            guard named(name) != nil else { return false }
            inbox.partition = name
            return true
        }
        guard found else { throw MPDError(.noExist, "partition does not exist") }
        inbox.markPending([.playlist, .player, .mixer, .output, .options])
    }

    /// `moveoutput NAME`: the output called `outputName` moves into `destination` from
    /// whichever partition holds it, keeping its enabled state; every client sees idle
    /// `output`. Nothing happens when `destination` holds it already.
    /// - Throws: ACK 50 `No such output`; ACK 5 when the output's device would not let go.
    public func moveOutput(named outputName: String, into destination: Partition) throws(MPDError) {
        let moved: Result<Bool, MPDError> = changes.withLock { _ in
            guard let device = destination.pipeline.outputStatuses.firstIndex(where: { $0.name == outputName }) else {
                return .failure(MPDError(.noExist, "No such output"))
            }
            if destination.heldDevices.contains(device) { return .success(false) }
            guard let source = all.first(where: { $0 !== destination && $0.heldDevices.contains(device) }) else {
                return .failure(MPDError(.noExist, "No such output"))
            }
            guard let wasEnabled = source.detach(device: device) else {
                return .failure(MPDError(.unknown, "output \(outputName.mpdQuoted) is busy"))
            }
            destination.attach(device: device, enabled: wasEnabled)
            return .success(true)
        }
        if try moved.get() { idleBus.emit(.output) }
    }
}
