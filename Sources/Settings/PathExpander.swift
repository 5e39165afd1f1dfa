import Foundation

/// Expands the home directory and XDG variables in configuration paths, as MPD does:
/// a leading `~` or `~/`, and a leading `$HOME`, `$XDG_CONFIG_HOME`, `$XDG_MUSIC_DIR`,
/// `$XDG_CACHE_HOME`, `$XDG_DATA_HOME`, `$XDG_RUNTIME_DIR` or `$XDG_STATE_HOME`.
package struct PathExpander: Sendable {
    private let environment: [String: String]

    /// Creates an expander that reads variables from `environment`.
    package init(environment: [String: String]) {
        self.environment = environment
    }

    /// The user's home directory: `$HOME`, or `/` when it is not set.
    package var home: String {
        guard let home = environment["HOME"], !home.isEmpty else { return "/" }
        return home
    }

    /// The directory an XDG base variable names, with the XDG specification's fallback.
    package func directory(_ variable: XDGDirectory) -> String {
        if let value = environment[variable.rawValue], value.hasPrefix("/") { return value }
        switch variable {
        case .configHome: return home + "/.config"
        case .cacheHome: return home + "/.cache"
        case .dataHome: return home + "/.local/share"
        case .stateHome: return home + "/.local/state"
        case .runtimeDir: return "/run/user/\(getuid())"
        case .musicDir: return userMusicDirectory()
        }
    }

    /// `path` with a leading `~` or known variable replaced.
    package func expand(_ path: String) -> String {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst() }
        guard path.hasPrefix("$") else { return path }
        let name = path.dropFirst().prefix { $0 != "/" }
        let rest = path.dropFirst(1 + name.count)
        if name == "HOME" { return home + rest }
        guard let variable = XDGDirectory(rawValue: String(name)) else { return path }
        return directory(variable) + rest
    }

    /// The music folder: `$XDG_MUSIC_DIR`, else the one in `user-dirs.dirs`, else `~/Music`.
    private func userMusicDirectory() -> String {
        if let value = environment["XDG_MUSIC_DIR"], value.hasPrefix("/") { return value }
        let file = directory(.configHome) + "/user-dirs.dirs"
        if let text = try? String(contentsOfFile: file, encoding: .utf8) {
            for line in text.split(separator: "\n") where line.hasPrefix("XDG_MUSIC_DIR=") {
                let value = line.dropFirst("XDG_MUSIC_DIR=".count).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\""))
                if value.hasPrefix("$HOME") { return home + value.dropFirst(5) }
                if value.hasPrefix("/") { return value }
            }
        }
        return home + "/Music"
    }
}

/// The XDG base directory variables a configuration path may start with.
package enum XDGDirectory: String, Sendable, CaseIterable {
    case configHome = "XDG_CONFIG_HOME"
    case cacheHome = "XDG_CACHE_HOME"
    case dataHome = "XDG_DATA_HOME"
    case stateHome = "XDG_STATE_HOME"
    case runtimeDir = "XDG_RUNTIME_DIR"
    case musicDir = "XDG_MUSIC_DIR"
}

/// Expands shell wildcards in include paths with the C library's `glob`.
enum Glob {
    /// The files matching `pattern`, sorted; a pattern without wildcards matches itself if it exists.
    static func matches(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { index in
            result.gl_pathv[index].map { String(cString: $0) }
        }.sorted()
    }
}
