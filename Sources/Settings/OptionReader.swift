/// Applies configuration lines to a ``TonearmConfiguration`` one by one, then resolves the
/// permission options in MPD's order (`src/Permission.cxx`).
struct OptionReader {
    private(set) var configuration: TonearmConfiguration
    private(set) var warnings: [String] = []
    private let paths: PathExpander

    private var defaultPermissions: Permissions?
    private var localPermissions: Permissions?

    init(configuration: TonearmConfiguration, paths: PathExpander) {
        self.configuration = configuration
        self.paths = paths
    }

    /// Applies one top-level line. Non-repeatable options replace an earlier value; for
    /// repeatable ones an empty value clears the list collected so far, as in MPD.
    mutating func apply(_ p: ConfigParameter) throws(ConfigurationError) {
        switch p.name {
        case "music_directory": configuration.musicDirectory = paths.expand(p.value)
        case "playlist_directory": configuration.playlistDirectory = paths.expand(p.value)
        case "db_file": configuration.dbFile = paths.expand(p.value)
        case "state_file": configuration.stateFile = p.value.isEmpty ? nil : paths.expand(p.value)
        case "sticker_file": configuration.stickerFile = p.value.isEmpty ? nil : paths.expand(p.value)
        case "state_file_interval": configuration.stateFileInterval = try p.integer(in: 1...Int.max)
        case "restore_paused": configuration.restorePaused = try p.boolean()
        case "log_level":
            guard let level = LogLevel(configValue: p.value) else {
                throw ConfigurationError(
                    at: p.origin, "log_level: \"\(p.value)\" is not one of error, warning, notice, info, verbose")
            }
            configuration.logLevel = level
        case "log_file":
            guard !p.value.isEmpty else { throw ConfigurationError(at: p.origin, "log_file: empty path") }
            // MPD's one special value; any other is a path, `~` expanded as MPD expands it.
            configuration.logDestination =
                p.value == "syslog" ? .syslog : .file(path: paths.expand(p.value), origin: p.origin)

        case "bind_to_address":
            if p.value.isEmpty {
                configuration.bindAddresses.removeAll()
                break
            }
            let value = p.value.hasPrefix("~") || p.value.hasPrefix("$") ? paths.expand(p.value) : p.value
            guard let address = BindAddress(parsing: value) else {
                throw ConfigurationError(
                    at: p.origin, "bind_to_address: \"\(p.value)\" is not an address, address:port or socket path")
            }
            configuration.bindAddresses.append(address)
        case "port": configuration.port = try p.integer(in: 0...65535)
        case "unix_socket_mode":
            guard let mode = Int(p.value, radix: 8), (0...0o777).contains(mode) else {
                throw ConfigurationError(
                    at: p.origin, "unix_socket_mode: \"\(p.value)\" is not an octal mode such as 0660")
            }
            configuration.unixSocketMode = mode
        case "max_connections": configuration.maxConnections = try p.integer(in: 1...Int.max)
        case "connection_timeout": configuration.connectionTimeout = try p.integer(in: 1...Int.max)
        case "max_command_list_size": configuration.maxCommandListSize = try p.kibibytes()
        case "max_output_buffer_size": configuration.maxOutputBufferSize = try p.kibibytes()
        case "max_playlist_length": configuration.maxPlaylistLength = try p.integer(in: 1...16 * 1024 * 1024)

        case "password":
            if p.value.isEmpty {
                configuration.passwords.removeAll()
                break
            }
            guard let at = p.value.lastIndex(of: "@") else {
                throw ConfigurationError(at: p.origin, "password: expected \"SECRET@permission,permission\"")
            }
            let permissions = try ConfigParameter.permissions(
                String(p.value[p.value.index(after: at)...]), at: p.origin, option: p.name)
            configuration.passwords.append(PasswordEntry(password: String(p.value[..<at]), permissions: permissions))
        case "default_permissions": defaultPermissions = try p.permissions()
        case "local_permissions": localPermissions = try p.permissions()
        case "host_permissions":
            if p.value.isEmpty {
                configuration.hostPermissions.removeAll()
                break
            }
            let parts = p.value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else {
                throw ConfigurationError(
                    at: p.origin, "host_permissions: expected \"ADDRESS[/PREFIX] permission,permission\"")
            }
            let permissions = try ConfigParameter.permissions(String(parts[1]), at: p.origin, option: p.name)
            configuration.hostPermissions.append(HostPermission(address: String(parts[0]), permissions: permissions))

        case "zeroconf_enabled": configuration.zeroconfEnabled = try p.boolean()
        case "zeroconf_name": configuration.zeroconfName = p.value

        case "mixer_type": configuration.mixerType = try p.choice(of: MixerType.self)
        case "audio_output_format": configuration.audioOutputFormat = p.value.isEmpty ? nil : p.value
        case "audio_buffer_size": configuration.audioBufferSize = try p.kibibytes()
        case "replaygain": configuration.replayGain = try p.choice(of: ReplayGainMode.self)
        case "shuffle_mode": configuration.shuffleMode = try p.choice(of: ShuffleMode.self)
        case "replaygain_preamp": configuration.replayGainPreamp = try p.decibels()
        case "replaygain_missing_preamp": configuration.replayGainMissingPreamp = try p.decibels()
        case "replaygain_limit": configuration.replayGainLimit = try p.boolean()
        case "volume_normalization": configuration.volumeNormalization = try p.boolean()

        case "auto_update": configuration.autoUpdate = try p.boolean()
        case "auto_update_depth": configuration.autoUpdateDepth = try p.integer(in: 0...Int.max)
        case "follow_outside_symlinks": configuration.followOutsideSymlinks = try p.boolean()
        case "update_guard": configuration.updateGuard = try p.boolean()
        case "follow_inside_symlinks": configuration.followInsideSymlinks = try p.boolean()
        case "metadata_to_use": configuration.metadataToUse = p.list()
        case "album_art_names": configuration.albumArtNames = p.list()
        case "save_absolute_paths_in_playlists": configuration.saveAbsolutePathsInPlaylists = try p.boolean()
        case "sticker_play_stats": configuration.stickerPlayStats = try p.boolean()
        case "default_smart_playlists": configuration.defaultSmartPlaylists = try p.boolean()

        default:
            if let reason = Self.ignoredOptions[p.name] {
                warnings.append("\(p.origin): \"\(p.name)\" has no effect in Tonearm: \(reason)")
            } else {
                warnings.append("\(p.origin): unknown option \"\(p.name)\" (ignored)")
            }
        }
    }

    /// Applies one block.
    mutating func apply(_ block: ConfigBlock) throws(ConfigurationError) {
        switch block.name {
        case "audio_output":
            guard let type = block["type"], !type.isEmpty else {
                throw ConfigurationError(at: block.origin, "audio_output: missing \"type\"")
            }
            guard let name = block["name"], !name.isEmpty else {
                throw ConfigurationError(at: block.origin, "audio_output: missing \"name\"")
            }
            if configuration.audioOutputs.contains(where: { $0.name == name }) {
                throw ConfigurationError(at: block.origin, "audio_output: there is already an output named \"\(name)\"")
            }
            var output = AudioOutputConfiguration(type: type, name: name, origin: block.origin)
            if let enabled = block.parameter("enabled") { output.enabled = try enabled.boolean() }
            if let mixer = block.parameter("mixer_type") { output.mixerType = try mixer.choice(of: MixerType.self) }
            output.format = block["format"]
            output.settings = Dictionary(block.parameters.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
            configuration.audioOutputs.append(output)
        case "input" where block["plugin"] == "curl":
            // MPD's input plugin for http and https: its options are FFmpeg's here.
            configuration.streamInput = try StreamInputSettings(curlBlock: block)
        case "partition":
            guard let name = block["name"], !name.isEmpty else {
                throw ConfigurationError(at: block.origin, "partition: missing \"name\"")
            }
            configuration.partitions.append(name)
        default:
            if let reason = Self.ignoredBlocks[block.name] {
                warnings.append("\(block.origin): \"\(block.name)\" block has no effect in Tonearm: \(reason)")
            } else {
                warnings.append("\(block.origin): unknown block \"\(block.name)\" (ignored)")
            }
        }
    }

    /// The configuration with permissions resolved: everything by default; nothing once a
    /// password is set; `default_permissions` overrides that; local clients get
    /// `local_permissions` or the default as it stands; `host_permissions` then makes the
    /// default nothing for hosts no entry matches.
    mutating func finish() -> TonearmConfiguration {
        var fallback: Permissions = configuration.passwords.isEmpty ? .all : .none
        if let defaultPermissions { fallback = defaultPermissions }
        configuration.localPermissions = localPermissions ?? fallback
        if !configuration.hostPermissions.isEmpty { fallback = .none }
        configuration.defaultPermissions = fallback
        return configuration
    }

    /// MPD options a real `mpd.conf` has that Tonearm reads without using, and why.
    static let ignoredOptions: [String: String] = [
        "user": "run it as that user instead (systemd User=)",
        "group": "run it as that group instead (systemd Group=)",
        "pid_file": "it runs in the foreground; a service manager tracks the process",
        "filesystem_charset": "file names are read as UTF-8",
        "id3v1_encoding": "deprecated in MPD too",
        "gapless_mp3_playback": "deprecated in MPD too; playback is always gapless",
        "buffer_before_play": "deprecated in MPD too",
        "samplerate_converter": "FFmpeg's libswresample converts sample rates",
        "mixramp_analyzer": "not supported",
        "inhibit_idle": "not supported",
        "http_proxy_host": "deprecated in MPD too; use the curl input block's proxy",
        "http_proxy_port": "deprecated in MPD too; use the curl input block's proxy_port",
        "http_proxy_user": "deprecated in MPD too; use the curl input block's proxy_user",
        "http_proxy_password": "deprecated in MPD too; use the curl input block's proxy_password",
    ]

    /// MPD blocks a real `mpd.conf` has that Tonearm does not use, and why.
    static let ignoredBlocks: [String: String] = [
        "decoder": "FFmpeg decodes every format",
        "input": "streams are read by FFmpeg; only the curl block's options apply",
        "input_cache": "files are read as they play",
        "archive_plugin": "archives are not browsed",
        "playlist_plugin": "m3u, pls and cue are read without plugins",
        "resampler": "FFmpeg's libswresample converts sample rates",
        "filter": "filters are not supported",
        "database": "the database is SQLite at db_file",
        "neighbors": "neighbor discovery is not supported",
    ]
}
