package import Settings

/// Builds the device for one `audio_output` block.
///
/// Everything the block can get wrong (an unknown type, a missing `command` or `path`, a bad
/// `format` or `sync`) is reported here, when the configuration is read, as MPD reports it
/// when it starts; nothing is opened until the output thread calls
/// ``AudioOutputDevice/open(format:)``.
package enum OutputFactory {
    /// The plugins Tonearm has, by `type`.
    package static let plugins = ["alsa", "null", "pipe", "fifo", "pulse", "httpd"]

    /// Makes the device `config` describes.
    ///
    /// - Parameters:
    ///   - config: the block; its `format` (already merged with the global
    ///     `audio_output_format` by the caller, if any) is forced on every open.
    ///   - defaultMixerType: the global `mixer_type`, for blocks that do not set their own; it
    ///     decides whether an ALSA output gets its ``AudioOutputDevice/hardwareMixer``.
    package static func make(
        _ config: AudioOutputConfiguration, defaultMixerType: MixerType = .hardware
    ) throws(OutputError) -> any AudioOutputDevice {
        let settings = OutputSettings(config)
        let forced = try ForcedFormat(config.format)
        switch config.type {
        case "null":
            return NullOutput(name: config.name, sync: try settings.bool("sync", default: true), forced: forced)
        case "pipe":
            guard let command = settings["command"], !command.isEmpty else {
                throw OutputError("No \"command\" parameter specified")
            }
            return PipeOutput(name: config.name, command: command, forced: forced)
        case "fifo":
            guard let path = settings["path"], !path.isEmpty else {
                throw OutputError("No \"path\" parameter specified")
            }
            return FifoOutput(name: config.name, path: path, forced: forced)
        case "alsa":
            let device = settings["device"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
            let mixer: ALSAMixer?
            if (config.mixerType ?? defaultMixerType) == .hardware {
                mixer = ALSAMixer(
                    device: settings["mixer_device"] ?? ALSAMixer.defaultDevice(forPCM: device),
                    control: settings["mixer_control"],
                    index: try settings.integer("mixer_index", default: 0, in: 0...Int(Int32.max)))
            } else {
                mixer = nil
            }
            return ALSAOutput(
                name: config.name, device: device,
                bufferTime: try settings.integer("buffer_time", default: 500_000, in: 1...Int(UInt32.max)),
                periodTime: try settings.integer("period_time", default: 0, in: 0...Int(UInt32.max)),
                forced: forced, mixer: mixer, allowedFormats: try allowedFormats(settings["allowed_formats"]),
                dop: try settings.bool("dop", default: false))
        case "pulse":
            let mixer: PulseMixer?
            if (config.mixerType ?? defaultMixerType) == .hardware {
                let text = settings["scale_volume"] ?? settings["scale_factor"]
                let scale = text.map { Double($0) } ?? 1
                guard let scale, (0.5...5).contains(scale) else {
                    throw OutputError("\"\(text ?? "")\" is not a number in the range 0.5 to 5.0")
                }
                mixer = PulseMixer(scale: scale)
            } else {
                mixer = nil
            }
            return PulseOutput(
                name: config.name, server: settings["server"], sink: settings["sink"],
                role: settings["media_role"] ?? "music", forced: forced, mixer: mixer)
        case "httpd":
            let address = settings["bind_to_address"].flatMap { $0.isEmpty || $0 == "any" ? nil : $0 }
            return try HTTPDOutput(
                name: config.name, host: address,
                port: try settings.integer("port", default: 8000, in: 0...65535),
                encoding: try StreamEncoding(settings: config.settings),
                maxClients: try settings.integer("max_clients", default: 0, in: 0...Int(Int32.max)),
                // MPD's placeholders for the ICY headers when the options are missing.
                station: ICYStationInfo(
                    name: config.name, genre: settings["genre"] ?? "Set genre in config",
                    website: settings["website"] ?? "Set website in config"),
                takesTags: try settings.bool("tags", default: true), forced: forced)
        default:
            throw OutputError("No such audio output plugin: \(config.type)")
        }
    }

    /// ALSA's `allowed_formats` option, with MPD's parse errors.
    private static func allowedFormats(_ text: String?) throws(OutputError) -> [AllowedFormat] {
        guard let text else { return [] }
        do {
            return try AllowedFormat.parseList(text)
        } catch {
            throw OutputError("allowed_formats: \(error.reason)")
        }
    }
}
