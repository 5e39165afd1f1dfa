/// A pipeline with the outputs it plays through: what a partition drives (MPD's
/// `PlayerControl` with its `MultipleOutputs`). The devices behind the outputs are shared by
/// every partition's pipeline (``OutputDevices``); each plays in the one pipeline that holds it,
/// and `moveoutput` hands it from one to another with ``detachOutput(_:)`` and
/// ``attachOutput(_:enabled:)``.
package protocol OutputPipeline: AudioPipeline, AudioOutputControl {
    /// Whether this pipeline holds output `index`.
    func holdsOutput(_ index: Int) -> Bool
    /// Lets output `index` go, waiting until its device is closed so that another pipeline may
    /// open it. - Returns: whether it was enabled; `nil` when this pipeline does not hold it or
    /// its device did not let go.
    func detachOutput(_ index: Int) -> Bool?
    /// Takes output `index` in, enabled or not. - Precondition: no other pipeline holds it.
    func attachOutput(_ index: Int, enabled: Bool)
    /// Stops playing and ends the pipeline's threads: its partition is deleted.
    func shutDown()
}
