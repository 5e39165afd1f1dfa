import MPDProtocol
package import Playback
import Synchronization

/// One partition (MPD's `Partition`): a queue, a player and a mixer (``PlayerController``), and
/// the outputs it lists. Every partition's pipeline reaches every device, but an output plays
/// only in the partition that holds it; the others list it as MPD lists a moved-away output,
/// a `dummy` (see ``PartitionSet/moveOutput(named:into:)``).
package final class Partition: Sendable {
    /// The partition's name; the first is `default`.
    package let name: String
    /// The queue, playback state and volume; every change is serialised by its lock.
    package let player: PlayerController
    /// The audio pipeline the player drives, with the outputs behind it.
    package let pipeline: any OutputPipeline
    /// The devices this partition lists, by their index in the configuration, in the order
    /// `outputs` numbers them: the default partition starts with all of them, another
    /// partition with none, and each device moved in is appended (MPD's `MultipleOutputs`).
    private let slots: Mutex<[Int]>

    /// Creates a partition.
    /// - Parameter devices: the device indices listed from the start.
    package init(name: String, player: PlayerController, pipeline: any OutputPipeline, devices: [Int]) {
        self.name = name
        self.player = player
        self.pipeline = pipeline
        slots = Mutex(devices)
    }

    /// The outputs as `outputs` prints them: numbered in this partition's order, held ones
    /// with their plugin, moved-away ones as `dummy`.
    package var outputStatuses: [OutputStatus] {
        let statuses = pipeline.outputStatuses
        return slots.withLock { $0 }.enumerated().map { id, device in
            var status = statuses[device]
            status.id = id
            return status
        }
    }

    /// The outputs this partition holds, without the stand-ins, in its order (what the state
    /// file keeps).
    package var heldOutputStatuses: [OutputStatus] {
        let statuses = pipeline.outputStatuses
        return slots.withLock { $0 }.filter { pipeline.holdsOutput($0) }.enumerated().map { id, device in
            var status = statuses[device]
            status.id = id
            return status
        }
    }

    /// The device index of output `id` as this partition numbers it.
    func device(forOutput id: Int) -> Int? {
        slots.withLock { $0.indices.contains(id) ? $0[id] : nil }
    }

    /// The device indices of the outputs this partition holds (not the stand-ins).
    package var heldDevices: [Int] {
        slots.withLock { $0 }.filter { pipeline.holdsOutput($0) }
    }

    /// Enables or disables output `id` (this partition's numbering); a stand-in only
    /// remembers the state, as MPD's dummy does. - Returns: whether it changed; `nil` for no
    /// such output.
    func setOutput(_ id: Int, enabled: Bool) -> Bool? {
        guard let device = device(forOutput: id) else { return nil }
        return pipeline.setOutput(device, enabled: enabled)
    }

    /// `outputset` on output `id` (this partition's numbering). A stand-in has no attributes,
    /// as MPD's dummy plugin has none.
    func setAttribute(output id: Int, name: String, value: String) throws(OutputAttributeError) {
        guard let device = device(forOutput: id) else { throw .noSuchOutput }
        guard pipeline.holdsOutput(device) else { throw .unsupported }
        try pipeline.setAttribute(output: device, name: name, value: value)
    }

    /// Takes device `index` in, enabled or not, listing it at the end unless it is listed
    /// already (a device coming back takes its old place, as in MPD).
    func attach(device index: Int, enabled: Bool) {
        slots.withLock { slots in
            if !slots.contains(index) { slots.append(index) }
        }
        pipeline.attachOutput(index, enabled: enabled)
        player.setMixerAvailable(pipeline.hasMixer)
    }

    /// Lets device `index` go to another partition, waiting for its output thread to close it
    /// (``DecodingPipeline/detachOutput(_:)``): only ``PartitionSet``'s queue of changes calls
    /// it, never an event loop. - Returns: whether it was enabled; `nil` when this partition
    /// does not hold it or its thread did not let go.
    func detach(device index: Int) -> Bool? {
        guard let wasEnabled = pipeline.detachOutput(index) else { return nil }
        player.setMixerAvailable(pipeline.hasMixer)
        return wasEnabled
    }

    /// Stops playback and the pipeline's threads: the partition is being deleted.
    func shutDown() {
        player.stop()
        pipeline.shutDown()
    }
}
