/// The settings the audio threads read as they go: the software volume, replay gain,
/// crossfade and MixRamp, and `audio_output_format`.
///
/// They have a lock of their own (``DecodingPipeline``'s `settings` mutex): changing them from
/// a client does not take the lock the audio threads wait on, and the threads read a copy once
/// per chunk. A change applies from the next chunk decoded or played.
struct PipelineSettings: Sendable {
    /// The software volume (0…100) of outputs with a software mixer.
    var volume = 100
    /// The replay gain options and the mode in effect, applied as songs are decoded.
    var replayGain: ReplayGainSettings
    /// `crossfade`, `mixrampdb`, `mixrampdelay`: the decoder reads them as it nears a song's end.
    var crossfade = CrossfadeSettings()
    /// `audio_output_format`, the format MPD's decoder converts every song to: crossfade
    /// needs both songs in the same one of those (an output's own `format` does not count).
    var configuredFormat: String?
}
