import Foundation
import Logging
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

/// Whether the music folder can be scanned, and if not, why, in MPD's words
/// (`CheckDirectoryReadable` in MPD's `ConfigGlue`).
enum MusicDirectoryCheck: Equatable {
    /// A readable folder with at least one entry.
    case usable
    /// A readable folder with nothing in it.
    case empty
    /// `stat` failed; the reason is the system's (`No such file or directory`).
    case missing(reason: String)
    /// It exists but is no folder, or cannot be entered or read: the whole message, and what
    /// to do about that folder.
    case unusable(String, remedy: String)

    /// What to do about a folder the server may not enter or list.
    private static let permissionsRemedy = "let the user tonearm runs as read and enter it (chmod a+rX)"

    /// Checks `path` as the scanner will use it: entered (execute) and listed (read).
    init(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            self = .missing(reason: String(cString: strerror(errno)))
            return
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            self = .unusable("Not a directory: \(path)", remedy: "make it a folder that holds your music")
            return
        }
        // Stat'ing "." inside fails with EACCES when the folder cannot be entered, as in MPD.
        if stat(path + "/.", &info) != 0, errno == EACCES {
            self = .unusable(
                "No permission to traverse (\"execute\") directory: \(path)", remedy: Self.permissionsRemedy)
            return
        }
        guard let directory = opendir(path) else {
            let reason = errno
            self = .unusable(
                reason == EACCES
                    ? "No permission to read directory: \(path)"
                    : "Failed to open directory \(path): \(String(cString: strerror(reason)))",
                remedy: Self.permissionsRemedy)
            return
        }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." {
                self = .usable
                return
            }
        }
        self = .empty
    }
}
