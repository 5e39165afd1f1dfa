package import MusicModel

/// One audio device: the end of the pipeline for one `audio_output` block, and the one
/// protocol a new kind of output implements (``ALSAOutput``, ``NullOutput``, ``PipeOutput``,
/// ``FifoOutput``, ``HTTPDOutput``, …).
///
/// A device is driven by exactly one output thread, in the order open, many writes (with
/// drain, cancel and pause between them), close, and then possibly open again. That thread
/// calls it directly (``DecodingPipeline``'s `Output` holds it), with no adapter between, so
/// a chunk costs one protocol call per device call. It is not `Sendable` because that one
/// thread owns it: create it (``OutputFactory/make(_:defaultMixerType:)``) and hand it to its
/// thread. Only ``hardwareMixer`` is shared, so that volume commands can reach it from
/// elsewhere, and ``attributes`` and ``setAttribute(name:value:)`` are read and called from
/// clients' tasks.
///
/// The calls mirror MPD's `AudioOutput` plugin interface (`Open`, `Play`, `Drain`, `Cancel`,
/// `Pause`, `Close`), so MPD's behaviour for each plugin maps onto them one to one. A mixer
/// and attributes are optional: the defaults below say there are none.
package protocol AudioOutputDevice: AnyObject {
    /// The configured `name`, which clients see in `outputs`.
    var name: String { get }
    /// The plugin, as the `type` option and `outputs`' `plugin:` line spell it: `alsa`,
    /// `null`, `pipe`, `fifo`, `pulse`, `httpd`.
    var plugin: String { get }

    /// Opens the device for audio in `format` and returns the format it actually takes.
    ///
    /// That may differ from `format`: the output's `format` option forces fields (`*` keeps the
    /// source's), and a device may negotiate another sample type, rate or channel count (as
    /// MPD's ALSA plugin does). The caller converts to the returned format before writing.
    func open(format: PCMFormat) throws(OutputError) -> PCMFormat

    /// Plays `bytes` (interleaved PCM in the opened format, whole frames) and returns how many
    /// bytes the device took, blocking until it took them.
    ///
    /// It runs on the real-time output thread, so it must not allocate on its normal path
    /// (an error, which ends the playback on this output, may). A trailing partial frame is
    /// not taken.
    func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) -> Int

    /// Plays out what the device has buffered and returns when it has been heard: the end of
    /// playback, so that the last second is not cut off.
    func drain()

    /// Drops what the device has buffered, for stop and seek: the old audio must not be heard
    /// after the command.
    func cancel()

    /// Pauses the device in place.
    ///
    /// - Returns: true if the device paused itself and will resume with the next write (ALSA's
    ///   `snd_pcm_pause` where the hardware supports it; the paced outputs stop their clock);
    ///   false if it cannot, and the caller simply stops writing (and may close and reopen it),
    ///   as MPD closes outputs that cannot pause.
    func pause() -> Bool

    /// Closes the device. It may be opened again.
    func close()

    /// Whether the device wants the tags of what it plays (``sendTag(_:)``): the `httpd`
    /// output, unless its `tags` option says no. The output thread looks them up only for
    /// such a device, and reads this once, when it is made: it must not change.
    var takesTags: Bool { get }

    /// The tags of the song the next write belongs to, or a stream's new title: called before
    /// the first write of each song (also before the device opens) and when a station's
    /// title changes, as MPD hands a chunk's tag to its outputs.
    func sendTag(_ tags: [TagValue])

    /// For a device that keeps streaming while paused, and while stopped with the output kept
    /// open (`always_on`), as MPD's output thread repeats `Pause()`: the seconds until its next
    /// ``pause()`` call is due (0 or less: now). Nil for a device that is paused once. The
    /// `httpd` output streams silence this way, so that its listeners stay connected. Called
    /// on the output thread, with the pipeline's lock held: it must not block.
    func nextPauseCall() -> Double?

    /// Waits for room for `byteCount` bytes, so that the next ``write(_:)`` of that much does
    /// not block, or until the descriptor `wake` is readable; returns whether there is room.
    /// The output thread waits this way so that a pause or a seek, which make `wake` readable,
    /// is seen at once instead of when a blocked write returns (a period of the device, 125 ms
    /// by default). It may also return false spuriously; the caller then waits again. A device
    /// that does not block long answers true at once.
    func waitForRoom(_ byteCount: Int, interruptedBy wake: Int32) -> Bool

    /// How many times the device ran dry and was restarted by ``write(_:)`` since it was
    /// created (ALSA's underruns). The output thread reads it after each chunk and logs each
    /// new one; a device that cannot run dry keeps it at 0.
    var underruns: Int { get }

    /// The device's own volume control, present when it has one and its `mixer_type` is
    /// `hardware` (the ALSA simple mixer). Software volume is applied to the samples by the
    /// output thread with ``SoftwareVolume`` instead.
    var hardwareMixer: (any HardwareMixer)? { get }

    /// The runtime attributes `outputs` lists for the device (MPD's ALSA plugin has
    /// `allowed_formats` and `dop`; the others have none).
    var attributes: [OutputAttribute] { get }

    /// `outputset`: changes an attribute; it applies from the next open. Called from a client's
    /// task, not the output thread.
    func setAttribute(name: String, value: String) throws(OutputAttributeError)
}

extension AudioOutputDevice {
    /// Never ran dry, unless the plugin can.
    package var underruns: Int { 0 }

    /// No tags, unless the plugin does something with them.
    package var takesTags: Bool { false }

    /// Tags are ignored, unless the plugin takes them.
    package func sendTag(_ tags: [TagValue]) {}

    /// Paused once, unless the plugin keeps streaming.
    package func nextPauseCall() -> Double? { nil }

    /// Writes do not block for long, unless the plugin's do.
    package func waitForRoom(_ byteCount: Int, interruptedBy wake: Int32) -> Bool { true }

    /// No mixer of its own, unless the plugin has one.
    package var hardwareMixer: (any HardwareMixer)? { nil }

    /// No attributes, unless the plugin has some.
    package var attributes: [OutputAttribute] { [] }

    /// MPD's answer for a plugin without attributes.
    package func setAttribute(name: String, value: String) throws(OutputAttributeError) { throw .unsupported }
}

/// A volume control in the device itself, reached from the partition's command handlers while
/// the output thread plays (hence `Sendable`).
package protocol HardwareMixer: AnyObject, Sendable {
    /// The current volume, 0…100, as `status` and `getvol` report it.
    func volume() throws(OutputError) -> Int
    /// Sets the volume, 0…100 (`setvol`, `volume`).
    func setVolume(_ volume: Int) throws(OutputError)
    /// Calls `listener` with the volume whenever it changes, also when something outside
    /// Tonearm changed it (`alsamixer`, the desktop's volume slider, `pactl`), as MPD's ALSA
    /// mixer reports such changes to its clients.
    func onChange(_ listener: @escaping @Sendable (Int) -> Void)
}
