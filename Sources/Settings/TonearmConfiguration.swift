/// Everything the server reads from its configuration file, with MPD's option names in the
/// comments and MPD's defaults unless noted. ``ConfigurationLoader`` fills it in.
package struct TonearmConfiguration: Sendable, Equatable {
    // MARK: Files and directories

    /// `music_directory`: the library root.
    package var musicDirectory: String
    /// `playlist_directory`: where stored playlists are kept (`NAME.m3u`).
    package var playlistDirectory: String
    /// `db_file`: the SQLite library database.
    package var dbFile: String
    /// `state_file`: the queue and player state kept across restarts; nil to keep none.
    package var stateFile: String?
    /// `state_file_interval`: seconds between state file writes while the state changes, as
    /// MPD writes it; nil (the default) writes each change within a second and the position
    /// every few seconds while playing.
    package var stateFileInterval: Int?
    /// `restore_paused`: start paused instead of playing when the state file says playing.
    package var restorePaused = false
    /// `sticker_file`: the SQLite sticker database; nil disables the sticker commands.
    package var stickerFile: String?
    /// `log_level`.
    package var logLevel: LogLevel = .notice
    /// `log_file`: where the log goes; standard error without one.
    package var logDestination: LogDestination = .standardError

    // MARK: Network and limits

    /// `bind_to_address` values in file order; empty means every interface.
    package var bindAddresses: [BindAddress] = []
    /// `port`: the TCP port for addresses that do not name their own.
    package var port = 6600
    /// `unix_socket_mode` (a Tonearm option): the permission bits of the Unix sockets that
    /// `bind_to_address` creates. MPD always uses 0666: any local user may connect.
    package var unixSocketMode = 0o666
    /// `max_connections`: clients over this number are closed before the greeting.
    package var maxConnections = 100
    /// `connection_timeout`: seconds a client may stay silent (idle clients are exempt).
    package var connectionTimeout = 60
    /// `max_command_list_size`, converted from KiB to bytes.
    package var maxCommandListSize = 2048 * 1024
    /// `max_output_buffer_size`, converted from KiB to bytes.
    package var maxOutputBufferSize = 8192 * 1024
    /// `max_playlist_length`: the most songs a queue or stored playlist holds.
    package var maxPlaylistLength = 16384

    // MARK: Permissions

    /// `password` lines.
    package var passwords: [PasswordEntry] = []
    /// What a TCP client without a password gets (`default_permissions`, resolved as MPD does).
    package var defaultPermissions: Permissions = .all
    /// What a Unix-socket client gets (`local_permissions`, else the default as resolved so far).
    package var localPermissions: Permissions = .all
    /// `host_permissions` lines.
    package var hostPermissions: [HostPermission] = []

    // MARK: Zeroconf

    /// `zeroconf_enabled`: announce `_mpd._tcp` with Avahi.
    package var zeroconfEnabled = true
    /// `zeroconf_name`, where `%h` becomes the host name. MPD's default is `Music Player @ %h`.
    package var zeroconfName = "Tonearm @ %h"

    // MARK: Audio

    /// `audio_output` blocks in file order.
    package var audioOutputs: [AudioOutputConfiguration] = []
    /// `mixer_type`: the mixer of outputs that do not choose their own.
    package var mixerType: MixerType = .hardware
    /// `audio_output_format`: a format every output gets, such as `44100:16:2`; nil for none.
    package var audioOutputFormat: String?
    /// `audio_buffer_size` in bytes (MPD's code default, 8 MiB; the option is in KiB).
    package var audioBufferSize = 8192 * 1024
    /// `replaygain`.
    package var replayGain: ReplayGainMode = .off
    /// `shuffle_mode` (Tonearm's): what `random 1` shuffles until a client chooses.
    package var shuffleMode: ShuffleMode = .songs
    /// `replaygain_preamp` in dB (−15…15).
    package var replayGainPreamp = 0.0
    /// `replaygain_missing_preamp` in dB (−15…15), for songs without replay gain tags.
    package var replayGainMissingPreamp = 0.0
    /// `replaygain_limit`: never amplify beyond the track's peak.
    package var replayGainLimit = true
    /// `volume_normalization`.
    package var volumeNormalization = false
    /// `partition` blocks: the names of the partitions to create at start besides `default`.
    package var partitions: [String] = []
    /// How streams are fetched (`input { plugin "curl" … }`).
    package var streamInput = StreamInputSettings()

    // MARK: Library

    /// `auto_update`: watch the music folder with inotify and update the database.
    package var autoUpdate = false
    /// `auto_update_depth`: how deep below the root to watch; nil for no limit.
    package var autoUpdateDepth: Int?
    /// `follow_outside_symlinks`.
    package var followOutsideSymlinks = true
    /// `update_guard` (a Tonearm option, default yes): an update refuses to empty the library,
    /// or to remove most of it, while the music folder is away; `rescan` forces it.
    package var updateGuard = true
    /// `follow_inside_symlinks`.
    package var followInsideSymlinks = true
    /// `metadata_to_use`: the tag names to read, or nil for every tag but `comment` (MPD's default).
    package var metadataToUse: [String]?
    /// `album_art_names`: file names `albumart` tries after MPD's `cover.{png,jpg,jxl,webp}`
    /// (a Tonearm option; MPD has a fixed list), compared ignoring case.
    package var albumArtNames: [String] = ["folder.jpg", "folder.png", "front.jpg"]
    /// `save_absolute_paths_in_playlists`.
    package var saveAbsolutePathsInPlaylists = false
    /// `sticker_play_stats`: keep `playCount`, `lastPlayed` and `skipCount` stickers (a Tonearm
    /// option, default yes).
    package var stickerPlayStats = true
    /// `default_smart_playlists`: write the default smart playlists (most played, recently
    /// added, never played, top rated) into `playlist_directory` once (a Tonearm option, default
    /// yes; docs/smart-playlists.md).
    package var defaultSmartPlaylists = true

    /// The configuration without a file: MPD's defaults, music in `$XDG_MUSIC_DIR` or `~/Music`,
    /// and Tonearm's state (database, playlists, state file, stickers) in `$XDG_STATE_HOME/tonearm`.
    package static func defaults(environment: [String: String]) -> TonearmConfiguration {
        TonearmConfiguration(paths: PathExpander(environment: environment))
    }

    private init(paths: PathExpander) {
        let state = paths.directory(.stateHome) + "/tonearm"
        musicDirectory = paths.directory(.musicDir)
        playlistDirectory = state + "/playlists"
        dbFile = state + "/database.sqlite"
        stateFile = state + "/state"
        stickerFile = state + "/stickers.sqlite"
    }
}
