import Foundation
import Settings
import Testing

@Suite("configuration options")
struct ConfigurationLoaderTests {
    private let environment = ["HOME": "/home/u"]

    private func load(_ text: String) throws -> (TonearmConfiguration, [String]) {
        let loader = ConfigurationLoader(environment: environment)
        return try loader.interpret(ConfigFileParser(environment: environment).parse(text: text, file: "t.conf"))
    }

    private func error(_ text: String) -> String? {
        do {
            _ = try load(text)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("stickers: a sticker_file by default, play statistics on unless switched off")
    func stickers() throws {
        let defaults = TonearmConfiguration.defaults(environment: ["HOME": "/home/u"])
        #expect(defaults.stickerFile == "/home/u/.local/state/tonearm/stickers.sqlite")
        #expect(defaults.stickerPlayStats)
        let (c, warnings) = try load(
            """
            sticker_file "/var/lib/mpd/sticker.sql"
            sticker_play_stats "no"
            """)
        #expect(warnings.isEmpty)
        #expect(c.stickerFile == "/var/lib/mpd/sticker.sql" && !c.stickerPlayStats)
    }

    @Test("unix_socket_mode: MPD's 0666 unless set, read as octal")
    func unixSocketMode() throws {
        #expect(TonearmConfiguration.defaults(environment: ["HOME": "/home/u"]).unixSocketMode == 0o666)
        #expect(try load("unix_socket_mode \"0660\"").0.unixSocketMode == 0o660)
        #expect(try load("unix_socket_mode \"600\"").0.unixSocketMode == 0o600)
    }

    @Test("defaults without a file follow MPD, with state under XDG_STATE_HOME/tonearm")
    func defaults() {
        let c = TonearmConfiguration.defaults(environment: ["HOME": "/home/u", "XDG_STATE_HOME": "/var/state"])
        #expect(c.musicDirectory == "/home/u/Music")
        #expect(c.playlistDirectory == "/var/state/tonearm/playlists")
        #expect(c.dbFile == "/var/state/tonearm/database.sqlite")
        #expect(c.stateFile == "/var/state/tonearm/state")
        #expect(c.port == 6600 && c.maxConnections == 100 && c.connectionTimeout == 60)
        #expect(c.maxCommandListSize == 2048 * 1024 && c.maxOutputBufferSize == 8192 * 1024)
        #expect(c.defaultPermissions == .all && c.localPermissions == .all)
        #expect(c.zeroconfEnabled && c.zeroconfName == "Tonearm @ %h")
        #expect(c.mixerType == .hardware && c.replayGain == .off && !c.autoUpdate)
        #expect(
            TonearmConfiguration.defaults(environment: ["HOME": "/h"]).dbFile
                == "/h/.local/state/tonearm/database.sqlite")
        #expect(
            TonearmConfiguration.defaults(environment: ["HOME": "/h", "XDG_MUSIC_DIR": "/srv/music"]).musicDirectory
                == "/srv/music")
    }

    @Test("paths expand ~ and XDG variables")
    func paths() throws {
        let (c, warnings) = try load(
            """
            music_directory "~/m"
            playlist_directory "$XDG_CONFIG_HOME/mpd/playlists"
            db_file "$HOME/db"
            state_file "$XDG_STATE_HOME/mpd/state"
            sticker_file ""
            """)
        #expect(warnings.isEmpty)
        #expect(c.musicDirectory == "/home/u/m")
        #expect(c.playlistDirectory == "/home/u/.config/mpd/playlists")
        #expect(c.dbFile == "/home/u/db")
        #expect(c.stateFile == "/home/u/.local/state/mpd/state")
        #expect(c.stickerFile == nil)
    }

    @Test("bind_to_address forms, repeated, and an empty value resets the list")
    func bindAddresses() throws {
        let (c, _) = try load(
            """
            bind_to_address "gone"
            bind_to_address ""
            bind_to_address "any"
            bind_to_address "127.0.0.1:6700"
            bind_to_address "[::1]:6701"
            bind_to_address "::1"
            bind_to_address "localhost"
            bind_to_address "~/.mpd/socket"
            """)
        #expect(
            c.bindAddresses == [
                .any(port: nil), .host("127.0.0.1", port: 6700), .host("::1", port: 6701), .host("::1", port: nil),
                .host("localhost", port: nil), .unixSocket(path: "/home/u/.mpd/socket"),
            ])
        #expect(
            error("bind_to_address \"host:99999\"")
                == "t.conf:1: bind_to_address: \"host:99999\" is not an address, address:port or socket path")
    }

    @Test("log_file is a path (~ expanded, the line kept for its error) or syslog; log_level takes MPD's names")
    func logOptions() throws {
        #expect(try load("").0.logDestination == .standardError)
        #expect(logFile(try load("\nlog_file \"~/.mpd/log\"").0) == "/home/u/.mpd/log t.conf:2")
        #expect(try load("log_file \"syslog\"").0.logDestination == .syslog)
        #expect(error("log_file \"\"") == "t.conf:1: log_file: empty path")
        let names = ["error", "warning", "notice", "default", "info", "secure", "verbose"]
        let levels = try names.map { try load("log_level \"\($0)\"").0.logLevel }
        #expect(levels == [.error, .warning, .notice, .notice, .info, .info, .verbose])
    }

    /// The log file's path and the line that named it, or nil when the log goes elsewhere.
    private func logFile(_ c: TonearmConfiguration) -> String? {
        guard case .file(let path, let origin) = c.logDestination else { return nil }
        return "\(path) \(origin)"
    }

    @Test("sizes are KiB, as in MPD")
    func sizes() throws {
        let (c, _) = try load("max_command_list_size \"16\"\nmax_output_buffer_size \"1M\"\naudio_buffer_size \"4096\"")
        #expect(c.maxCommandListSize == 16 * 1024)
        #expect(c.maxOutputBufferSize == 1024 * 1024)
        #expect(c.audioBufferSize == 4096 * 1024)
        #expect(
            error("max_command_list_size \"0\"")
                == "t.conf:1: max_command_list_size: \"0\" is not a positive size in KiB")
    }

    @Test(
        "bad values are errors naming the line",
        arguments: [
            ("port \"http\"", "t.conf:1: port: \"http\" is not a number from 0 to 65535"),
            ("\nmax_connections \"0\"", "t.conf:2: max_connections: \"0\" is not a number from 1"),
            ("zeroconf_enabled \"maybe\"", "t.conf:1: zeroconf_enabled: \"maybe\" is not a boolean (yes or no)"),
            ("log_level \"loud\"", "t.conf:1: log_level: \"loud\" is not one of error, warning, notice, info, verbose"),
            ("mixer_type \"fancy\"", "t.conf:1: mixer_type: \"fancy\" is not one of hardware, software, none, null"),
            ("replaygain_preamp \"20\"", "t.conf:1: replaygain_preamp: \"20\" is not a gain from -15 to 15 dB"),
            ("password \"nopermissions\"", "t.conf:1: password: expected \"SECRET@permission,permission\""),
            ("password \"s@read,fly\"", "t.conf:1: password: unknown permission \"fly\""),
            (
                "default_permissions \"read,everything\"",
                "t.conf:1: default_permissions: unknown permission \"everything\""
            ),
            (
                "host_permissions \"10.0.0.1\"",
                "t.conf:1: host_permissions: expected \"ADDRESS[/PREFIX] permission,permission\""
            ),
            ("audio_output {\n name \"x\"\n}", "t.conf:1: audio_output: missing \"type\""),
            ("audio_output {\n type \"null\"\n}", "t.conf:1: audio_output: missing \"name\""),
            (
                "audio_output {\n type \"null\"\n name \"a\"\n enabled \"perhaps\"\n}",
                "t.conf:4: enabled: \"perhaps\" is not a boolean (yes or no)"
            ),
            ("sticker_play_stats \"often\"", "t.conf:1: sticker_play_stats: \"often\" is not a boolean (yes or no)"),
            (
                "unix_socket_mode \"rw-rw----\"",
                "t.conf:1: unix_socket_mode: \"rw-rw----\" is not an octal mode such as 0660"
            ),
            ("unix_socket_mode \"1777\"", "t.conf:1: unix_socket_mode: \"1777\" is not an octal mode such as 0660"),
        ])
    func badValues(text: String, expected: String) {
        #expect(error(text) == expected)
    }

    @Test("permissions resolve in MPD's order")
    func permissions() throws {
        var (c, _) = try load("")
        #expect(c.defaultPermissions == .all && c.localPermissions == .all)

        (c, _) = try load("password \"secret@read,add,control,admin\"")
        #expect(
            c.passwords == [PasswordEntry(password: "secret", permissions: [.read, .add, .control, .player, .admin])])
        #expect(c.defaultPermissions == .none && c.localPermissions == .none)

        (c, _) = try load("password \"a@b@read\"\ndefault_permissions \"read\"")
        #expect(c.passwords.first?.password == "a@b")
        #expect(c.defaultPermissions == .read && c.localPermissions == .read)

        (c, _) = try load(
            "default_permissions \"read\"\nlocal_permissions \"read,admin\"\nhost_permissions \"192.168.1.0/24 read,control\""
        )
        #expect(c.defaultPermissions == .none)
        #expect(c.localPermissions == [.read, .admin])
        #expect(
            c.hostPermissions == [HostPermission(address: "192.168.1.0/24", permissions: [.read, .control, .player])])

        (c, _) = try load("password \"x@read\"\npassword \"\"\npassword \"y@add\"")
        #expect(c.passwords == [PasswordEntry(password: "y", permissions: .add)])
    }

    @Test("a later line replaces an earlier one")
    func replaces() throws {
        #expect(try load("port \"6601\"\nport \"6602\"").0.port == 6602)
    }

    @Test("audio_output and partition blocks")
    func blocks() throws {
        let (c, _) = try load(
            """
            mixer_type "software"
            audio_output {
                type "alsa"
                name "DAC"
                device "hw:1"
                mixer_type "hardware"
                format "44100:16:2"
                enabled "no"
            }
            audio_output {
                type "fifo"
                name "snapcast"
                path "/tmp/snapfifo"
            }
            partition {
                name "kitchen"
            }
            """)
        #expect(c.mixerType == .software)
        #expect(c.audioOutputs.map(\.name) == ["DAC", "snapcast"])
        #expect(c.audioOutputs[0].enabled == false && c.audioOutputs[0].mixerType == .hardware)
        #expect(c.audioOutputs[0].format == "44100:16:2" && c.audioOutputs[0].settings["device"] == "hw:1")
        #expect(
            c.audioOutputs[1].enabled && c.audioOutputs[1].mixerType == nil
                && c.audioOutputs[1].settings["path"] == "/tmp/snapfifo")
        #expect(c.partitions == ["kitchen"])
        #expect(
            error("audio_output {\n type \"null\"\n name \"a\"\n}\naudio_output {\n type \"null\"\n name \"a\"\n}")
                == "t.conf:5: audio_output: there is already an output named \"a\"")
    }

    @Test("a typical Debian mpd.conf (log_file uncommented) loads, with one warning per option Tonearm does not use")
    func debianStyleFile() throws {
        let (c, warnings) = try load(
            """
            music_directory		"/var/lib/mpd/music"
            playlist_directory		"/var/lib/mpd/playlists"
            db_file			"/var/lib/mpd/tag_cache"
            log_file			"/var/log/mpd/mpd.log"
            pid_file			"/run/mpd/pid"
            state_file			"/var/lib/mpd/state"
            sticker_file                   "/var/lib/mpd/sticker.sql"
            user				"mpd"
            bind_to_address		"localhost"
            input {
                    plugin "curl"
            }
            decoder {
                    plugin                  "hybrid_dsd"
                    enabled                 "no"
            }
            audio_output {
            	type		"alsa"
            	name		"My ALSA Device"
            }
            filesystem_charset		"UTF-8"
            some_future_option "1"
            """)
        #expect(c.musicDirectory == "/var/lib/mpd/music")
        #expect(c.bindAddresses == [.host("localhost", port: nil)])
        #expect(c.audioOutputs.map(\.type) == ["alsa"])
        #expect(logFile(c) == "/var/log/mpd/mpd.log t.conf:4")
        // The curl block is read (streams are fetched with its options), so it warns no more.
        #expect(warnings.count == 5)
        #expect(!warnings.contains { $0.hasPrefix("t.conf:10:") })
        #expect(c.streamInput == StreamInputSettings())
        #expect(warnings.last == "t.conf:22: unknown option \"some_future_option\" (ignored)")
    }

    @Test("the curl input block: certificates, a proxy; other input plugins have no effect")
    func curlInput() throws {
        #expect(TonearmConfiguration.defaults(environment: environment).streamInput.verifyPeer)
        let (c, warnings) = try load(
            """
            input {
                plugin "curl"
                cacert "/etc/ssl/private-ca.pem"
                verify_peer "no"
                proxy "proxy.lan"
                proxy_port "3128"
                proxy_user "me"
                proxy_password "secret"
            }
            input {
                plugin "ffmpeg"
            }
            """)
        #expect(!c.streamInput.verifyPeer)
        #expect(c.streamInput.certificateAuthorities == "/etc/ssl/private-ca.pem")
        #expect(c.streamInput.proxy == "http://me:secret@proxy.lan:3128")
        #expect(
            warnings == [
                "t.conf:10: \"input\" block has no effect in Tonearm: streams are read by FFmpeg; only the curl block's options apply"
            ])
        #expect(error("input {\n plugin \"curl\"\n verify_peer \"maybe\"\n}") != nil)
        #expect(try load("input {\n plugin \"curl\"\n proxy \"p\"\n}").0.streamInput.proxy == "http://p")
        let escaped = try load(
            "input {\n plugin \"curl\"\n proxy \"http://p\"\n proxy_user \"a@b\"\n proxy_password \"c:d/é\"\n}")
        #expect(escaped.0.streamInput.proxy == "http://a%40b:c%3Ad%2F%C3%A9@p")
    }

    @Test("without a file the search path is tried, then the defaults apply")
    func searchPath() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("tonearm-home-\(getpid())")
        try FileManager.default.createDirectory(
            at: home.appendingPathComponent(".mpd"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let loader = ConfigurationLoader(environment: ["HOME": home.path])
        let expected: [String] = [
            "/.config/tonearm/tonearm.conf", "/.config/mpd/mpd.conf", "/.mpdconf", "/.mpd/mpd.conf",
        ]
        .map { home.path + $0 }
        #expect(Array(loader.searchPath.prefix(4)) == expected)
        if !FileManager.default.fileExists(atPath: "/etc/tonearm.conf") {
            let loaded = try loader.load(file: nil)
            #expect(loaded.file == nil)
            #expect(loaded.configuration == .defaults(environment: ["HOME": home.path]))
        }
        try "port \"6700\"\n".write(to: home.appendingPathComponent(".mpd/mpd.conf"), atomically: true, encoding: .utf8)
        let loaded = try loader.load(file: nil)
        #expect(loaded.file == home.path + "/.mpd/mpd.conf")
        #expect(loaded.configuration.port == 6700)
    }
}
