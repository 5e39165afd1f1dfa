import Playback
import Server
import Settings

extension PartitionPipelines {
    /// The decoding pipelines over the configured `audio_output` blocks (ALSA's `default`
    /// device without any): the devices are opened once and shared by every partition's
    /// pipeline; the default partition's holds them all at start.
    /// - Parameters:
    ///   - devices: the outputs, set up once (``OutputDevices``); the assembly logs them.
    ///   - report: receives every playback failure: the server's log.
    static func decoding(
        devices: OutputDevices, configuration: TonearmConfiguration, report: @escaping @Sendable (String) -> Void
    ) -> PartitionPipelines {
        return PartitionPipelines(
            defaultPipeline: DecodingPipeline.make(
                devices: devices, attached: true, configuration: configuration, report: report),
            makePipeline: {
                DecodingPipeline.make(devices: devices, attached: false, configuration: configuration, report: report)
            })
    }
}
