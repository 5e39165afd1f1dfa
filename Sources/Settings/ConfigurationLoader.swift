import Foundation

/// A configuration ready to use, with what the user should be told about it.
package struct LoadedConfiguration: Sendable {
    /// The settings.
    package var configuration: TonearmConfiguration
    /// One message per option that was not used (unknown, or an MPD option Tonearm ignores).
    package var warnings: [String]
    /// The file the settings came from, or nil when none was found and defaults apply.
    package var file: String?
}

/// Finds, reads and interprets the configuration file.
package struct ConfigurationLoader: Sendable {
    private let environment: [String: String]
    private let paths: PathExpander

    /// Creates a loader that expands paths and finds files with `environment`.
    package init(environment: [String: String]) {
        self.environment = environment
        paths = PathExpander(environment: environment)
    }

    /// The files tried in order when no file is named: Tonearm's own, then MPD's per-user
    /// places (so a user's MPD setup carries over), then `/etc/tonearm.conf`.
    /// `/etc/mpd.conf` is left out on purpose: it belongs to a system MPD.
    package var searchPath: [String] {
        let config = paths.directory(.configHome)
        return [
            config + "/tonearm/tonearm.conf",
            config + "/mpd/mpd.conf",
            paths.home + "/.mpdconf",
            paths.home + "/.mpd/mpd.conf",
            "/etc/tonearm.conf",
        ]
    }

    /// Loads `file`, or the first file of ``searchPath`` that exists, or the defaults.
    /// - Throws: ``ConfigurationError`` for a file that cannot be read, bad syntax or a bad value.
    package func load(file: String?) throws(ConfigurationError) -> LoadedConfiguration {
        let chosen = file.map(paths.expand) ?? searchPath.first { FileManager.default.fileExists(atPath: $0) }
        guard let chosen else {
            return LoadedConfiguration(configuration: .defaults(environment: environment), warnings: [], file: nil)
        }
        let document = try ConfigFileParser(environment: environment).parse(file: chosen)
        let (configuration, warnings) = try interpret(document)
        return LoadedConfiguration(configuration: configuration, warnings: warnings, file: chosen)
    }

    /// Gives the lines of a parsed document their meaning, starting from the defaults.
    /// - Returns: the configuration and a warning for each line that had no effect.
    package func interpret(_ document: ConfigDocument) throws(ConfigurationError) -> (TonearmConfiguration, [String]) {
        var reader = OptionReader(configuration: .defaults(environment: environment), paths: paths)
        for entry in document.entries {
            switch entry {
            case .parameter(let parameter): try reader.apply(parameter)
            case .block(let block): try reader.apply(block)
            }
        }
        return (reader.finish(), reader.warnings)
    }
}
