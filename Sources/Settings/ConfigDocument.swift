/// Where a configuration line came from, for error messages and warnings.
package struct ConfigOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The file, as it was named (after `~` expansion and include resolution).
    package let file: String
    /// The 1-based line number.
    package let line: Int

    package var description: String { "\(file):\(line)" }
}

/// One `name "value"` line, at the top level or inside a block.
package struct ConfigParameter: Sendable, Equatable {
    /// The option name, such as `music_directory`.
    package let name: String
    /// The value with its quotes removed and its escapes resolved.
    package let value: String
    /// Where the line is.
    package let origin: ConfigOrigin
}

/// A `name { … }` block such as `audio_output`: its `key "value"` lines, each key at most once.
package struct ConfigBlock: Sendable, Equatable {
    /// The block name, such as `audio_output`.
    package let name: String
    /// The line of the opening `name {`.
    package let origin: ConfigOrigin
    /// The lines inside the block, in file order.
    package let parameters: [ConfigParameter]

    /// The value of `key`, or nil when the block does not set it.
    package subscript(key: String) -> String? {
        parameters.first { $0.name == key }?.value
    }

    /// The line that sets `key`, for error messages about its value.
    package func parameter(_ key: String) -> ConfigParameter? {
        parameters.first { $0.name == key }
    }
}

/// A parsed configuration file with its includes resolved: every line in file order.
package struct ConfigDocument: Sendable, Equatable {
    /// One top-level entry.
    package enum Entry: Sendable, Equatable {
        case parameter(ConfigParameter)
        case block(ConfigBlock)
    }

    /// The entries of the file and the files it includes, in reading order.
    package var entries: [Entry] = []

    /// Creates an empty document.
    package init() {}
}
