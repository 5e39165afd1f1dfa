public import MPDProtocol
public import Configuration
import Foundation

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
    func setAttribute(output id: Int, name: String, value: String) throws(MPDError)
}

extension DecodingPipeline: AudioOutputControl {
    /// Builds the pipeline for the configured `audio_output` blocks, with the FFmpeg decoder.
    /// With no block at all, MPD's choice: ALSA's `default` device.
    /// - Parameter report: receives one line per output that cannot be set up (it is left out)
    ///   and, later, every playback failure with its full reason: the server's log.
    public static func make(configuration: TonearmConfiguration, report: @escaping @Sendable (String) -> Void) -> DecodingPipeline {
        var blocks = configuration.audioOutputs
        if blocks.isEmpty { blocks = [AudioOutputConfiguration(type: "alsa", name: "default")] }
        var outputs: [Output] = []
        for var block in blocks {
            if block.format == nil { block.format = configuration.audioOutputFormat }
            do {
                let device = try OutputFactory.make(block, defaultMixerType: configuration.mixerType)
                let mixerType = block.mixerType ?? configuration.mixerType
                outputs.append(Output(
                    name: block.name, plugin: block.type, sink: DeviceSink(device), format: block.format,
                    softwareVolume: mixerType == .software, mixer: device.hardwareMixer,
                    enabledAtStart: block.enabled))
            } catch {
                report("audio output \"\(block.name)\": \(error)")
            }
        }
        let pipeline = DecodingPipeline(outputs: outputs, bufferBytes: configuration.audioBufferSize,
                                        replayGain: ReplayGainSettings(configuration: configuration), log: report) { track in
            try AudioDecoder(path: track.path)
        }
        pipeline.lock.lock()
        pipeline.configuredFormat = configuration.audioOutputFormat
        pipeline.lock.unlock()
        return pipeline
    }

    public var outputStatuses: [OutputStatus] {
        lock.lock()
        defer { lock.unlock() }
        return outputs.indices.map {
            OutputStatus(id: $0, name: outputs[$0].name, plugin: outputs[$0].plugin, enabled: enabled[$0],
                         error: outputErrors[$0], hasMixer: outputs[$0].softwareVolume || outputs[$0].mixer != nil,
                         attributes: outputs[$0].sink.attributes)
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
        lock.broadcast()
        return true
    }

    public var hasMixer: Bool { outputs.contains { $0.softwareVolume || $0.mixer != nil } }

    public func setAttribute(output id: Int, name: String, value: String) throws(MPDError) {
        guard outputs.indices.contains(id) else { throw MPDError(.noExist, "No such audio output") }
        try outputs[id].sink.setAttribute(name: name, value: value)
    }
}
