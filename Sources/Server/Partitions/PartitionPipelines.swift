package import Playback

/// The pipelines the partitions play through, made by whoever puts the server together:
/// `tonearm` builds them over the configured output devices, tests over a stand-in. The
/// server itself opens no device.
package struct PartitionPipelines: Sendable {
    /// The default partition's pipeline, holding every output at start.
    package let defaultPipeline: any OutputPipeline
    /// Makes a pipeline over the same outputs that holds none of them (a new partition's:
    /// `moveoutput` brings them).
    package let makePipeline: @Sendable () -> any OutputPipeline

    /// Creates the set of pipelines.
    package init(defaultPipeline: any OutputPipeline, makePipeline: @escaping @Sendable () -> any OutputPipeline) {
        self.defaultPipeline = defaultPipeline
        self.makePipeline = makePipeline
    }
}
