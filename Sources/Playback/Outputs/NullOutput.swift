/// MPD's `null` output: takes everything and plays nothing.
///
/// With `sync "yes"` (MPD's default) it plays at real-time speed through a ``PacingClock``, so
/// playback with no sound card still takes as long as the music and `elapsed` advances as it
/// would on a device; with `sync "no"` it takes audio as fast as it is written (useful to
/// decode a whole file quickly, as in benchmarks).
package final class NullOutput: AudioOutputDevice {
    /// The configured name.
    package let name: String
    /// `null`.
    package var plugin: String { "null" }
    /// Whether writes are paced to real time (`sync`).
    package let sync: Bool
    /// A null output has no mixer; MPD gives it none either.
    package var hardwareMixer: (any HardwareMixer)? { nil }

    private let forced: ForcedFormat?
    private var clock: PacingClock?
    private var opened: PCMFormat?
    private var written: UInt64 = 0

    /// Creates a null output; ``OutputFactory`` makes these from `audio_output` blocks.
    init(name: String, sync: Bool, forced: ForcedFormat?) {
        self.name = name
        self.sync = sync
        self.forced = forced
    }

    /// Creates a null output directly, for tests and for a player with no configured output.
    package convenience init(name: String = "null", sync: Bool = true) {
        self.init(name: name, sync: sync, forced: nil)
    }

    /// Bytes taken since the last open or cancel: what would have been heard, the position
    /// the pipeline derives elapsed time from.
    package var bytesWritten: Int { Int(written) }

    /// The audio taken since the last open or cancel, as a duration of the opened format.
    package var playedDuration: Duration {
        guard let opened, opened.bytesPerSecond > 0 else { return .zero }
        let rate = UInt64(opened.bytesPerSecond)
        return .seconds(Int64(written / rate)) + .nanoseconds(Int64(written % rate * 1_000_000_000 / rate))
    }

    /// How far the paced audio runs ahead of the clock (MPD's `Delay()`); zero without sync.
    package var delay: Duration { .nanoseconds(Int64(clock?.delayNanoseconds ?? 0)) }

    /// Takes any format (or the forced one) and starts counting from zero.
    package func open(format: PCMFormat) throws(OutputError) -> PCMFormat {
        let actual = forced.apply(to: format)
        opened = actual
        written = 0
        clock = sync ? PacingClock(format: actual) : nil
        return actual
    }

    /// Counts the whole frames in `bytes`, first waiting for the previous write to have
    /// "played" when synced.
    package func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) -> Int {
        guard let frameSize = opened?.frameSize, frameSize > 0 else {
            throw OutputError("The null output \"\(name)\" is not open")
        }
        let count = bytes.count - bytes.count % frameSize
        clock?.pace(adding: count)
        written &+= UInt64(count)
        return count
    }

    /// Waits until the last write has "played", so a song ends when its time is up.
    package func drain() {
        clock?.waitUntilPlayed()
    }

    /// Forgets the position and the clock: stop and seek start afresh.
    package func cancel() {
        clock?.reset()
        written = 0
    }

    /// Stops the clock: nothing is buffered, so pausing is always possible.
    package func pause() -> Bool {
        clock?.reset()
        return true
    }

    /// Ends this playback.
    package func close() {
        clock = nil
        opened = nil
    }
}
