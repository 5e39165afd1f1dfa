import Foundation
public import Settings

/// One audio output as `outputs` shows it.
public struct OutputStatus: Sendable, Equatable {
    /// The output's number (`outputid`), in configuration order.
    public var id: Int
    /// `outputname`.
    public var name: String
    /// `plugin`.
    public var plugin: String
    /// `outputenabled`.
    public var enabled: Bool
    /// Why the output last failed, if it did.
    public var error: String?
    /// Whether the output has a mixer (software or hardware): switching it raises idle
    /// `mixer` as well, as in MPD.
    public var hasMixer = false
    /// `attribute:` lines (``AudioOutputDevice/attributes``).
    public var attributes: [OutputAttribute] = []
}

/// The audio outputs the server can switch on and off (`outputs`, `enableoutput`, …).
public protocol AudioOutputControl: AnyObject, Sendable {
    /// Every configured output.
    var outputStatuses: [OutputStatus] { get }
    /// Enables or disables output `id`. - Returns: whether it changed; `nil` for no such output.
    func setOutput(_ id: Int, enabled: Bool) -> Bool?
    /// Whether volume can be changed: an output has a software or a working hardware mixer.
    var hasMixer: Bool { get }
    /// `outputset`: sets attribute `name` of output `id` (which exists), with the plugin's
    /// errors.
    func setAttribute(output id: Int, name: String, value: String) throws(OutputAttributeError)
}

extension DecodingPipeline: AudioOutputControl {
    /// Builds the pipeline for the configured `audio_output` blocks, with the FFmpeg decoder.
    /// With no block at all, MPD's choice: ALSA's `default` device.
    /// - Parameter report: receives one line per output that cannot be set up (it is left out)
    ///   and, later, every playback failure with its full reason: the server's log.
    public static func make(configuration: TonearmConfiguration, report: @escaping @Sendable (String) -> Void)
        -> DecodingPipeline
    {
        make(
            devices: OutputDevices(configuration: configuration, report: report), attached: true,
            configuration: configuration, report: report)
    }

    /// Builds a pipeline over devices shared with other partitions' pipelines.
    /// - Parameter attached: whether it holds the devices at start (the default partition)
    ///   or none of them (a new partition: `moveoutput` brings them).
    public static func make(
        devices: OutputDevices, attached: Bool, configuration: TonearmConfiguration,
        report: @escaping @Sendable (String) -> Void
    ) -> DecodingPipeline {
        let pipeline = DecodingPipeline(
            outputs: devices.outputs, attached: attached, bufferBytes: configuration.audioBufferSize,
            replayGain: ReplayGainSettings(configuration: configuration), log: report
        ) { track in
            try AudioDecoder(path: track.path)
        }
        pipeline.lock.lock()
        pipeline.configuredFormat = configuration.audioOutputFormat
        pipeline.lock.unlock()
        return pipeline
    }

    /// Every device, by its index in the configuration; one this pipeline does not hold shows
    /// as MPD shows a moved-away output: plugin `dummy`.
    public var outputStatuses: [OutputStatus] {
        lock.lock()
        defer { lock.unlock() }
        return outputs.indices.map {
            OutputStatus(
                id: $0, name: outputs[$0].name, plugin: attached[$0] ? outputs[$0].plugin : "dummy",
                enabled: enabled[$0], error: outputErrors[$0],
                hasMixer: attached[$0] && (outputs[$0].softwareVolume || outputs[$0].mixer != nil),
                attributes: attached[$0] ? outputs[$0].device.attributes : [])
        }
    }

    public func setOutput(_ id: Int, enabled on: Bool) -> Bool? {
        lock.lock()
        defer { lock.unlock() }
        guard enabled.indices.contains(id) else { return nil }
        guard enabled[id] != on else { return false }
        enabled[id] = on
        if on { failedOutputs.remove(id) }
        chooseReference()
        if reference == nil && playingToken != nil && !paused {
            // The last output went away under a playing song: nothing plays it any more, so
            // MPD's player pauses with this error (resuming opens the outputs again) rather
            // than "playing" with a clock that stands still.
            pauseForOutputs("Failed to open audio output", generation: generation)
        }
        lock.broadcast()
        return true
    }

    public var hasMixer: Bool {
        lock.lock()
        defer { lock.unlock() }
        return outputs.indices.contains { attached[$0] && (outputs[$0].softwareVolume || outputs[$0].mixer != nil) }
    }

    public func setAttribute(output id: Int, name: String, value: String) throws(OutputAttributeError) {
        guard outputs.indices.contains(id) else { throw .noSuchOutput }
        try outputs[id].device.setAttribute(name: name, value: value)
    }
}
