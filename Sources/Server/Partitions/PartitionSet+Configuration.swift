package import Logging
import MPDProtocol
package import MediaLibrary
import MusicModel
import Playback
package import Settings

extension PartitionSet {
    /// The partitions the configuration describes: `default`, listing every output of
    /// `pipelines`' default pipeline, then one per `partition` block (made at start, as MPD
    /// makes them; a bad name is logged and skipped, as `newpartition` refuses it). Every
    /// partition's player is made alike: its idle events go to its own clients, the songs it
    /// plays to `playStatistics`. A new partition lists no output until `moveoutput`, as in MPD.
    /// - Parameter library: resolves a song's URI to its file; without one, the URI is taken
    ///   as relative to `music_directory`.
    package convenience init(
        configuration: TonearmConfiguration,
        pipelines: PartitionPipelines,
        library: Library?,
        idleBus: IdleBus,
        playStatistics: PlayStatistics?,
        logger: Logger
    ) {
        let musicDirectory = configuration.musicDirectory
        let makePartition: @Sendable (String, any OutputPipeline, [Int]) -> Partition = { name, pipeline, devices in
            let player = PlayerController(
                partition: name,
                maximumLength: configuration.maxPlaylistLength,
                pipeline: pipeline,
                hasMixer: pipeline.hasMixer,
                replayGainMode: configuration.replayGain,
                shuffleMode: configuration.shuffleMode,
                path: { uri in library?.absolutePath(of: uri) ?? musicDirectory + "/" + uri },
                notify: { [idleBus] events in idleBus.emit(events, partition: name) },
                listened: { listening in playStatistics?.record(listening) }
            )
            return Partition(name: name, player: player, pipeline: pipeline, devices: devices)
        }
        let first = pipelines.defaultPipeline
        self.init(
            default: makePartition("default", first, Array(first.outputStatuses.indices)),
            configured: configuration.partitions, idleBus: idleBus,
            make: { name in makePartition(name, pipelines.makePipeline(), []) },
            refused: { name, error in logger.error("partition \(name.mpdQuoted): \(error.message)") })
    }
}
