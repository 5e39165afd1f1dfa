import Playback
import Server
import Settings

extension PartitionPipelines {
    /// The decoding pipelines over the configured `audio_output` blocks (ALSA's `default`
    /// device without any): the devices are opened once here and shared by every partition's
    /// pipeline; the default partition's holds them all at start.
    /// - Parameter report: receives the outputs that cannot be set up and every playback
    ///   failure: the server's log.
    static func decoding(configuration: TonearmConfiguration, report: @escaping @Sendable (String) -> Void)
        -> PartitionPipelines
    {
        let devices = OutputDevices(configuration: configuration, report: report)
        return PartitionPipelines(
            defaultPipeline: DecodingPipeline.make(
                devices: devices, attached: true, configuration: configuration, report: report),
            makePipeline: {
                DecodingPipeline.make(devices: devices, attached: false, configuration: configuration, report: report)
            })
    }
}
