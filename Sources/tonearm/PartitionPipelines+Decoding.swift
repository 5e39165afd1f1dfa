import Playback
import Server
import Settings

extension PartitionPipelines {
    /// The decoding pipelines over the configured `audio_output` blocks (ALSA's `default`
    /// device without any): the devices are opened once and shared by every partition's
    /// pipeline; the default partition's holds them all at start.
    /// - Parameters:
    ///   - devices: the outputs, set up once (``OutputDevices``); the assembly logs them.
    ///   - log: receives every playback failure and each output's opening: the server's log.
    static func decoding(
        devices: OutputDevices, configuration: TonearmConfiguration,
        log: @escaping @Sendable (PipelineLogEntry) -> Void
    ) -> PartitionPipelines {
        return PartitionPipelines(
            defaultPipeline: DecodingPipeline.make(
                devices: devices, attached: true, configuration: configuration, log: log),
            makePipeline: {
                DecodingPipeline.make(devices: devices, attached: false, configuration: configuration, log: log)
            })
    }
}
