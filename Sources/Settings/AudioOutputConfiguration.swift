/// One `audio_output { … }` block. Tonearm reads the keys every output has here; the keys of
/// one plugin (`device`, `command`, `path`, `mixer_control`, …) stay in ``settings`` for the
/// output that uses them.
package struct AudioOutputConfiguration: Sendable, Equatable {
    /// The plugin: `alsa`, `null`, `pipe`, `fifo`, … (`type`).
    package var type: String
    /// The name clients see in `outputs` (`name`).
    package var name: String
    /// Whether the output starts enabled (`enabled`, default yes).
    package var enabled: Bool
    /// This output's mixer (`mixer_type`), or nil for the global `mixer_type`.
    package var mixerType: MixerType?
    /// The forced sample format (`format`, such as `44100:16:2`), or nil for the song's own.
    package var format: String?
    /// Every key of the block, including the ones above, for plugin-specific options.
    package var settings: [String: String]
    /// Where the block is, for messages about it.
    package var origin: ConfigOrigin?

    /// Creates an output configuration.
    package init(
        type: String, name: String, enabled: Bool = true, mixerType: MixerType? = nil,
        format: String? = nil, settings: [String: String] = [:], origin: ConfigOrigin? = nil
    ) {
        self.type = type
        self.name = name
        self.enabled = enabled
        self.mixerType = mixerType
        self.format = format
        self.settings = settings
        self.origin = origin
    }
}

/// How volume is changed (`mixer_type`).
package enum MixerType: String, Sendable, Equatable, CaseIterable {
    /// The device's own mixer (ALSA simple mixer).
    case hardware
    /// Scaling the samples before they reach the device.
    case software
    /// No volume control.
    case none
    /// Not supported in Tonearm's player; accepted so MPD configurations load.
    case null
}

/// How replay gain is applied (`replaygain`, and the `replay_gain_mode` command).
package enum ReplayGainMode: String, Sendable, Equatable, CaseIterable {
    case off, track, album, auto
}
