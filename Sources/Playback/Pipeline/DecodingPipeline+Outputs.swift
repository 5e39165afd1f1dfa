import Foundation
package import Settings

/// Building a pipeline for the configured outputs, switching them (`outputs`, `enableoutput`,
/// `outputset`), and handing one to another partition's pipeline (`moveoutput`): the devices
/// are shared, and each plays in the one pipeline that holds it.
extension DecodingPipeline: OutputPipeline {
    /// How long ``detachOutput(_:)`` waits for the output thread to finish the write it is in;
    /// a chunk plays in a fraction of this, so only a device that hangs runs into it.
    static let detachTimeout: TimeInterval = 5

    /// Builds a pipeline, with the FFmpeg decoder, over devices shared with other partitions'
    /// pipelines.
    /// - Parameters:
    ///   - attached: whether it holds the devices at start (the default partition) or none of
    ///     them (a new partition: `moveoutput` brings them).
    ///   - log: receives every playback failure with its full reason, and each output's
    ///     opening: the server's log.
    package static func make(
        devices: OutputDevices, attached: Bool, configuration: TonearmConfiguration,
        log: @escaping @Sendable (PipelineLogEntry) -> Void
    ) -> DecodingPipeline {
        DecodingPipeline(
            outputs: devices.outputs, attached: attached, bufferBytes: configuration.audioBufferSize,
            replayGain: ReplayGainSettings(configuration: configuration),
            configuredFormat: configuration.audioOutputFormat, log: log
        ) { [network = configuration.streamInput] track, interrupt in
            try AudioDecoder(path: track.path, interrupt: interrupt, network: network)
        }
    }

    /// Every device, by its index in the configuration; one this pipeline does not hold shows
    /// as MPD shows a moved-away output: plugin `dummy`.
    package var outputStatuses: [OutputStatus] {
        let slots = transport.withLock { transport.outputs }
        return outputs.indices.map {
            let held = slots[$0].attached
            return OutputStatus(
                id: $0, name: outputs[$0].name, plugin: held ? outputs[$0].plugin : "dummy",
                enabled: slots[$0].enabled, error: slots[$0].error, hasMixer: held && outputs[$0].hasMixer,
                attributes: held ? outputs[$0].device.attributes : [])
        }
    }

    package func setOutput(_ id: Int, enabled on: Bool) -> Bool? {
        transport.withLock {
            guard let changed = transport.outputs.setEnabled(id, on) else { return nil }
            if changed && transport.outputs.reference == nil && !nowPlaying.withLock({ $0.isStopped || $0.paused }) {
                // The last output went away under a playing song: nothing plays it any more,
                // so MPD's player pauses with this error (resuming opens the outputs again)
                // rather than "playing" with a clock that stands still. During a pause MPD
                // shows nothing: an output enabled again resumes from the paused chunk
                // (``PCMBuffer/addReader()``).
                pauseForOutputs("Failed to open audio output")
            }
            transport.broadcast()
            return changed
        }
    }

    package var hasMixer: Bool {
        let slots = transport.withLock { transport.outputs }
        return outputs.indices.contains { slots[$0].attached && outputs[$0].hasMixer }
    }

    package func setAttribute(output id: Int, name: String, value: String) throws(OutputAttributeError) {
        guard outputs.indices.contains(id) else { throw .noSuchOutput }
        try outputs[id].device.setAttribute(name: name, value: value)
    }

    /// Whether this pipeline holds output `index`.
    package func holdsOutput(_ index: Int) -> Bool {
        transport.withLock { transport.outputs.count > index && index >= 0 && transport.outputs[index].attached }
    }

    /// Takes output `index` out of this pipeline and waits until its thread has closed the
    /// device, so that another pipeline may open it. The output stays listed as a stand-in,
    /// disabled (MPD's dummy).
    ///
    /// The wait blocks the calling thread for up to ``detachTimeout`` (a device write that
    /// hangs), so the caller must not be an event loop: the server calls it on its queue of
    /// partition changes (`PartitionSet` in Sources/Server/Partitions/PartitionSet.swift). It
    /// waits on the transport's condition, which releases the lock, so the audio threads go on.
    /// - Returns: whether it was enabled; `nil` when this pipeline does not hold it, or when
    ///   its thread did not let go in time (then the pipeline keeps it).
    package func detachOutput(_ index: Int) -> Bool? {
        transport.withLock {
            guard let wasEnabled = transport.outputs.beginDetach(index, buffer: transport.buffer) else { return nil }
            transport.broadcast()
            let deadline = Date(timeIntervalSinceNow: Self.detachTimeout)
            while transport.outputs[index].holding && !transport.isShutDown {
                if !transport.wait(until: deadline) && transport.outputs[index].holding {
                    transport.outputs.cancelDetach(index)
                    transport.broadcast()
                    return nil
                }
            }
            transport.outputs.finishDetach(index)
            return wasEnabled
        }
    }

    /// Gives output `index` to this pipeline, enabled or not; its thread opens the device with
    /// the next chunk written from now on. - Precondition: no other pipeline holds it
    /// (``detachOutput(_:)``).
    package func attachOutput(_ index: Int, enabled on: Bool) {
        transport.withLock {
            transport.outputs.attach(index, enabled: on, buffer: transport.buffer)
            transport.broadcast()
        }
    }
}
