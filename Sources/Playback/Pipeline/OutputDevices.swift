package import Settings

/// The configured audio output devices, opened once for the whole server and shared by every
/// partition's pipeline: an output plays in the pipeline of the partition that holds it
/// (`moveoutput` hands it over), so a device is never driven by two pipelines at once.
package final class OutputDevices: @unchecked Sendable {
    // Immutable; each device is driven by one output thread at a time, that of the pipeline
    // holding it, and ``DecodingPipeline/detachOutput(_:)`` waits for that thread to let go
    // before another pipeline may take it, which the compiler cannot see.
    /// The devices in configuration order (their index is the output's number in the default
    /// partition).
    let outputs: [PipelineOutput]

    /// Opens the outputs of the `audio_output` blocks; with none, MPD's choice: ALSA's
    /// `default` device.
    /// - Parameter report: receives one line per output that cannot be set up (it is left out).
    package init(configuration: TonearmConfiguration, report: @Sendable (String) -> Void) {
        var blocks = configuration.audioOutputs
        if blocks.isEmpty { blocks = [AudioOutputConfiguration(type: "alsa", name: "default")] }
        var outputs: [PipelineOutput] = []
        for var block in blocks {
            if block.format == nil { block.format = configuration.audioOutputFormat }
            do {
                let device = try OutputFactory.make(block, defaultMixerType: configuration.mixerType)
                let alwaysOn = try OutputSettings(block).bool("always_on", default: false)
                let mixerType = block.mixerType ?? configuration.mixerType
                outputs.append(
                    PipelineOutput(
                        name: block.name, plugin: block.type, device: device, format: block.format,
                        softwareVolume: mixerType == .software, mixer: device.hardwareMixer,
                        enabledAtStart: block.enabled, alwaysOn: alwaysOn))
            } catch {
                report("audio output \"\(block.name)\": \(error)")
            }
        }
        self.outputs = outputs
    }

    /// The outputs' names, by index.
    package var names: [String] { outputs.map(\.name) }

    /// One phrase per output that was set up, for the start-up log: its name, its plugin, and
    /// whether it starts disabled (`enabled "no"`), so an operator sees which outputs exist.
    package var summaries: [String] {
        outputs.map { "\"\($0.name)\" (\($0.plugin)\($0.enabledAtStart ? "" : ", disabled"))" }
    }
}
