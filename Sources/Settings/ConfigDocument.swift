/// Where a configuration line came from, for error messages and warnings.
public struct ConfigOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The file, as it was named (after `~` expansion and include resolution).
    public let file: String
    /// The 1-based line number.
    public let line: Int

    public var description: String { "\(file):\(line)" }
}

/// One `name "value"` line, at the top level or inside a block.
public struct ConfigParameter: Sendable, Equatable {
    /// The option name, such as `music_directory`.
    public let name: String
    /// The value with its quotes removed and its escapes resolved.
    public let value: String
    /// Where the line is.
    public let origin: ConfigOrigin
}

/// A `name { … }` block such as `audio_output`: its `key "value"` lines, each key at most once.
public struct ConfigBlock: Sendable, Equatable {
    /// The block name, such as `audio_output`.
    public let name: String
    /// The line of the opening `name {`.
    public let origin: ConfigOrigin
    /// The lines inside the block, in file order.
    public let parameters: [ConfigParameter]

    /// The value of `key`, or nil when the block does not set it.
    public subscript(key: String) -> String? {
        parameters.first { $0.name == key }?.value
    }

    /// The line that sets `key`, for error messages about its value.
    public func parameter(_ key: String) -> ConfigParameter? {
        parameters.first { $0.name == key }
    }
}

/// A parsed configuration file with its includes resolved: every line in file order.
public struct ConfigDocument: Sendable, Equatable {
    /// One top-level entry.
    public enum Entry: Sendable, Equatable {
        case parameter(ConfigParameter)
        case block(ConfigBlock)
    }

    /// The entries of the file and the files it includes, in reading order.
    public var entries: [Entry] = []

    /// Creates an empty document.
    public init() {}
}
