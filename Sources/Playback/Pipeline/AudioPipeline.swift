package import MusicModel
package import Settings

/// A song as the pipeline plays it: where its file is and which part of it plays.
package struct PipelineTrack: Sendable, Equatable {
    /// Identifies the track to the player (the queue entry's id).
    package var token: Int
    /// The absolute path of the file, or the URL of a stream.
    package var path: String
    /// The song's URI as clients know it (relative to the music directory), which MPD's
    /// `Failed to decode` message names; `nil` when only the path is known.
    package var uri: String?
    /// Where playback starts, in seconds.
    package var start: Double
    /// Where playback ends, in seconds, or `nil` for the end of the file.
    package var end: Double?
    /// The song's full duration, when known.
    package var duration: Double?
    /// The song's audio format as `status` prints it (`44100:16:2`), when known.
    package var audioFormat: String?
    /// The song's tags, which outputs that take tags (the `httpd` output) get when it starts.
    package var tags: [TagValue]

    /// Whether the track is a remote stream: its path is a URL, not an absolute path.
    package var isStream: Bool { !path.hasPrefix("/") }

    /// Creates a track.
    package init(
        token: Int, path: String, uri: String? = nil, start: Double = 0, end: Double? = nil, duration: Double?,
        audioFormat: String?, tags: [TagValue] = []
    ) {
        self.tags = tags
        self.token = token
        self.path = path
        self.uri = uri
        self.start = start
        self.end = end
        self.duration = duration
        self.audioFormat = audioFormat
    }
}

/// What the pipeline reports to the player, always asynchronously and never while a call
/// into the pipeline is running.
package enum PipelineEvent: Sendable, Equatable {
    /// The queued track took over at the end of the previous one (gapless).
    case started(PipelineTrack)
    /// The stream the track `token` plays said what it is: at its start, and at each change
    /// of its live title.
    case streamDescribed(token: Int, StreamDescription)
    /// The pipeline paused at the border into the queued track, as ``AudioPipeline/setBorderPause(_:)`` asked.
    case borderPause
    /// Playback ran out: the track ended and nothing was queued.
    case finished
    /// The current track could not be played; the pipeline stopped.
    case failed(String)
    /// No output could play (every enabled one failed to open or to write): the pipeline
    /// holds the track, paused, as MPD's player pauses with the output's error. A new
    /// ``AudioPipeline/play(_:from:paused:)`` tries the outputs again.
    case outputsFailed(String)
}

/// What the pipeline is doing right now, for `status`.
package struct PipelineStatus: Sendable, Equatable {
    /// Whether something plays, is paused, or nothing does.
    package var state: PlayState
    /// The position in the current track, in seconds.
    package var elapsed: Double
    /// The bit rate of what is being decoded, kbit/s (0 when unknown).
    package var bitrate: Int
    /// The current track, when there is one.
    package var track: PipelineTrack?
    /// Why the pipeline holds the track paused when no output could play it: the message of
    /// the ``PipelineEvent/outputsFailed(_:)`` that follows. Set in the same instant as the
    /// pause, so `status` never shows the pause without its error.
    package var outputsFailure: String?

    /// Creates a status.
    package init(
        state: PlayState, elapsed: Double = 0, bitrate: Int = 0, track: PipelineTrack? = nil,
        outputsFailure: String? = nil
    ) {
        self.state = state
        self.elapsed = elapsed
        self.bitrate = bitrate
        self.track = track
        self.outputsFailure = outputsFailure
    }
}

/// The audio pipeline as the player controller sees it (docs/internals.md): it decodes and plays one
/// track, with at most one more queued to follow gaplessly, and reports when tracks change.
///
/// Every call returns at once. Each ``play(_:from:paused:)`` starts a new *generation*;
/// events carry the generation they belong to, so the controller can drop events that were
/// already on their way when it started something else.
package protocol AudioPipeline: AnyObject, Sendable {
    /// Where events go; called on the pipeline's own thread.
    func setEventHandler(_ handler: @escaping @Sendable (_ generation: UInt64, PipelineEvent) -> Void)
    /// Starts `track` at `offset` seconds into the file, replacing what played, and returns
    /// the new generation.
    func play(_ track: PipelineTrack, from offset: Double, paused: Bool) -> UInt64
    /// Sets (or with `nil` cancels) the track that follows the current one.
    func enqueue(_ track: PipelineTrack?)
    /// Pauses or resumes.
    func setPaused(_ paused: Bool)
    /// Whether to pause when the queued track takes over (single mode).
    func setBorderPause(_ enabled: Bool)
    /// Stops and forgets the current and queued tracks.
    func stop()
    /// Sets the volume (0…100) of the outputs that have a mixer.
    func setVolume(_ level: Int)
    /// Sets the replay gain mode in effect (`off`, `track` or `album`: the player resolves
    /// `auto`). It applies to audio decoded from now on.
    func setReplayGainMode(_ mode: ReplayGainMode)
    /// Sets the crossfade and MixRamp settings, for the song changes to come.
    func setCrossfade(_ settings: CrossfadeSettings)
    /// The current state.
    var status: PipelineStatus { get }
    /// The seconds actually played since start, for `stats`' `playtime`.
    var playedSeconds: Double { get }
    /// The volume of the first hardware mixer among the outputs this pipeline holds, read from
    /// the device; `nil` without one.
    func hardwareVolume() -> Int?
    /// Sets the software volume alone, leaving the hardware mixers where they are (the state
    /// file's `sw_volume`, which MPD restores to its software mixers only).
    func setSoftwareVolume(_ level: Int)
    /// Where the volume of a hardware mixer of an output this pipeline holds goes when it
    /// changes, also from outside Tonearm; called on the mixer's watcher thread.
    func setMixerHandler(_ handler: @escaping @Sendable (Int) -> Void)
}

extension AudioPipeline {
    /// No hardware mixer.
    package func hardwareVolume() -> Int? { nil }
    /// Without hardware mixers, the software volume is the volume.
    package func setSoftwareVolume(_ level: Int) { setVolume(level) }
    /// No hardware mixer to watch.
    package func setMixerHandler(_ handler: @escaping @Sendable (Int) -> Void) {}
}

/// What a stream says about itself, which no database knows: its tags (a station's name, the
/// title on air, a remote file's own tags), and what `status` shows of what plays.
package struct StreamDescription: Sendable, Equatable {
    /// The tags, as clients see them.
    package var tags: [TagValue]
    /// The length, for a remote file; `nil` for a live stream.
    package var duration: Double?
    /// The decoded format (`44100:16:2`), as `status` `audio` shows it.
    package var audioFormat: String

    /// Creates a description.
    package init(tags: [TagValue], duration: Double?, audioFormat: String) {
        self.tags = tags
        self.duration = duration
        self.audioFormat = audioFormat
    }
}
