import Foundation
import Logging
import MediaLibrary
import Settings
import Zeroconf

/// The few lines the server logs at start at the default level: which configuration
/// it read, which music folder it serves and whether that folder is usable, which files it
/// keeps, its outputs and whether it announces itself. Without them a newcomer whose music
/// folder is missing sees only `Listening on …` and an empty library, and cannot tell why.
struct StartupSummary {
    /// The settings in effect, with the command line's overrides applied.
    let settings: TonearmConfiguration
    /// The configuration file read, or nil when none was found and the defaults apply.
    let configFile: String?
    /// True when `--music-directory` chose the folder, so the advice names that option.
    let musicDirectoryFromCommandLine: Bool
    /// The server's log.
    let logger: Logger

    /// Logs the configuration, the music folder (a warning with advice when it is missing,
    /// unreadable or empty) and the database, state and sticker files.
    func logFilesAndFolders() {
        logger.notice("configuration: \(configFile ?? "none found, the defaults apply")")
        let folder = settings.musicDirectory
        switch MusicDirectoryCheck(path: folder) {
        case .usable:
            logger.notice("music directory: \(folder)")
        case .empty:
            logger.warning(
                "music directory \(folder) is empty, so is the library: copy or link your music into it, or \(pointAtMusic)"
            )
        case .missing(let reason):
            // MPD's words first, so what operators search for still matches.
            logger.warning(
                "Failed to access \(folder): \(reason); the library stays empty: create that folder and put your music in it, or \(pointAtMusic)"
            )
        case .unusable(let problem, let remedy):
            logger.warning("\(problem); the library stays empty: \(remedy), or \(pointAtMusic)")
        }
        logger.notice(
            "database: \(settings.dbFile); state file: \(settings.stateFile ?? "none"); sticker file: \(settings.stickerFile ?? "none")"
        )
    }

    /// Logs the outputs that were set up (those that could not be are logged as errors when
    /// they fail) and whether the server will announce itself with Zeroconf. The outputs open
    /// when playback starts, as MPD's do; each logs its first opening at this level, and a
    /// failure to open as an error.
    func logOutputsAndZeroconf(outputs: [String]) {
        if outputs.isEmpty {
            logger.notice("audio outputs: none could be set up")
        } else {
            logger.notice("audio outputs: \(outputs.joined(separator: ", ")); each opens when playback starts")
        }
        if settings.zeroconfEnabled {
            // An invalid name is logged as an error where the announcement is built.
            let name = ZeroconfServiceName(template: settings.zeroconfName)?.value ?? settings.zeroconfName
            logger.notice("Zeroconf: on, announced as \"\(name)\" once listening")
        } else {
            logger.notice("Zeroconf: off (zeroconf_enabled \"no\")")
        }
    }

    /// How to serve another folder: the option in the file read, or a file to pass, or the
    /// command line's override.
    private var pointAtMusic: String {
        if musicDirectoryFromCommandLine {
            return "give --music-directory a folder that holds your music"
        }
        if let configFile {
            return "set music_directory in \(configFile) (or start tonearm with --music-directory PATH)"
        }
        return "start tonearm with --music-directory PATH, or with --config FILE where FILE sets music_directory"
    }
}
