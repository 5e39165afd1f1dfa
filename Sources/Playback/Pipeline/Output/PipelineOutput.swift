/// One audio output as the pipeline drives it: the device its thread calls directly, and what
/// the configuration says around it.
struct PipelineOutput {
    /// The configured `name`.
    let name: String
    /// The `type`, which `outputs` prints as `plugin:`.
    var plugin = "test"
    /// The device the output thread opens, writes and closes.
    let device: any AudioOutputDevice
    /// The output's forced format (`format`, MPD's notation with `*` fields), if any.
    let format: String?
    /// Whether samples are scaled by the software volume before the device.
    let softwareVolume: Bool
    /// The device's own mixer, for `mixer_type "hardware"`.
    var mixer: (any HardwareMixer)?
    /// Whether the output plays from the start (`enabled`).
    var enabledAtStart = true
    /// `always_on`: the device is paused rather than closed when playback stops, so that an
    /// `httpd` output's listeners stay connected.
    var alwaysOn = false

    /// Whether the output has a volume control of any kind.
    var hasMixer: Bool { softwareVolume || mixer != nil }
}
