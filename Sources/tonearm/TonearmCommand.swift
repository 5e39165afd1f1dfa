import ArgumentParser
import Foundation
import Logging
import Platform
import Playback
import Settings

/// `tonearm`: runs the music server in the foreground until SIGTERM, SIGINT or `kill`.
@main
struct TonearmCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tonearm",
        abstract: "A music server for Linux that speaks the MPD protocol.",
        discussion: """
            Reads an mpd.conf-style configuration file, listens for MPD clients (mpc, ncmpcpp, \
            phone apps, python-mpd2 scripts) and serves them until it receives SIGTERM or SIGINT, \
            or a client sends `kill`. Logs go to standard error, one line per event, unless \
            log_file names a file or "syslog"; SIGHUP reopens the log file.
            """,
        version: TonearmVersion.description
    )

    @Option(name: .long, help: "The configuration file (mpd.conf syntax).", completion: .file())
    var config: String?

    @Option(name: .long, help: "The TCP port; 0 picks a free one and logs it.")
    var port: Int?

    @Option(
        name: .long, help: "The music folder, overriding music_directory.",
        completion: .directory)
    var musicDirectory: String?

    @Flag(name: .long, help: "Log everything (log_level \"verbose\").")
    var verbose = false

    func validate() throws {
        if let port, !(0...65535).contains(port) {
            throw ValidationError("--port must be between 0 and 65535")
        }
        if musicDirectory?.isEmpty == true {
            throw ValidationError("--music-directory needs a folder")
        }
    }

    func run() async throws {
        ProcessMemory.limitArenas(to: 2)
        ProcessMemory.releaseLoaderTables()
        let loaded: LoadedConfiguration
        do {
            loaded = try ConfigurationLoader(environment: ProcessInfo.processInfo.environment).load(file: config)
        } catch {
            FileHandle.standardError.write(Data("tonearm: \(error)\n".utf8))
            throw ExitCode.failure
        }
        var settings = loaded.configuration
        if let port { settings.port = port }
        if let musicDirectory {
            // `~` and $XDG_… as in the file, for a value the shell left alone (quoted, or from
            // `make run MUSIC=…`); a relative path is taken from where tonearm was started, as
            // any command-line path is, since the scanner needs an absolute one.
            let path = PathExpander(environment: ProcessInfo.processInfo.environment).expand(musicDirectory)
            settings.musicDirectory =
                path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        }

        let sink: LogSink
        do {
            sink = try LogSink(destination: settings.logDestination, environment: ProcessInfo.processInfo.environment)
        } catch {
            FileHandle.standardError.write(Data("tonearm: \(error)\n".utf8))
            throw ExitCode.failure
        }
        let level = verbose ? .debug : Logger.Level(settings.logLevel)
        LoggingSystem.bootstrap { label in SinkLogHandler(label: label, sink: sink, logLevel: level) }
        let logger = Logger(label: "tonearm")
        for warning in loaded.warnings { logger.warning("\(warning)") }
        let notifier = SystemdNotifier.fromEnvironment(logger: logger)
        let summary = StartupSummary(
            settings: settings, configFile: loaded.file, musicDirectoryFromCommandLine: musicDirectory != nil,
            logger: logger)

        do {
            try await ServerAssembly(
                settings: settings, logger: logger, notifier: notifier, summary: summary, logSink: sink
            ).run()
        } catch {
            // Left to ArgumentParser, the message would go out a byte at a time (`putc` on the
            // unbuffered stderr), and a line that another thread logs meanwhile would land in
            // the middle of it. One write keeps it whole.
            FileHandle.standardError.write(Data("tonearm: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }
}

extension Logger.Level {
    /// The swift-log level for MPD's `log_level` names.
    init(_ level: LogLevel) {
        switch level {
        case .error: self = .error
        case .warning: self = .warning
        case .notice: self = .notice
        case .info: self = .info
        case .verbose: self = .debug
        }
    }
}

/// What `tonearm --version` prints.
enum TonearmVersion {
    /// The version of this build: the release and, between releases, the commits since it
    /// (`packaging/version.sh`, run by the build through `Plugins/VersionPlugin`).
    static let release = buildVersion

    /// The version line and the versions of the libraries it plays and announces with.
    static var description: String {
        """
        tonearm \(release) (MPD protocol 0.24.0)
        FFmpeg: libavformat \(FFmpegLibrary.formatVersion), libavcodec \(FFmpegLibrary.codecVersion)
        ALSA: \(ALSALibrary.version)
        """
    }
}
