import Foundation

/// Reads mpd.conf syntax: `name "value"` lines, `name {` … `}` blocks of `key "value"` lines,
/// `#` comments, and `include` / `include_optional` of further files (glob patterns, relative
/// to the including file), the way MPD's `src/config/File.cxx` reads it.
///
/// The parser knows no option names; ``ConfigurationLoader`` gives the lines their meaning.
package struct ConfigFileParser: Sendable {
    /// How deep includes may nest before the parser assumes a loop.
    static let maximumIncludeDepth = 16

    private let expander: PathExpander

    /// Creates a parser that expands `~` and `$XDG_…` in include paths with `environment`.
    package init(environment: [String: String]) {
        expander = PathExpander(environment: environment)
    }

    /// Parses the file at `path` and every file it includes.
    /// - Throws: ``ConfigurationError`` naming the file and line of the first error.
    package func parse(file path: String) throws(ConfigurationError) -> ConfigDocument {
        var document = ConfigDocument()
        try parse(file: path, includedFrom: nil, depth: 0, into: &document)
        return document
    }

    /// Parses configuration text that came from `file` (used for error messages only).
    /// Includes are resolved relative to the directory of `file`.
    package func parse(text: String, file: String) throws(ConfigurationError) -> ConfigDocument {
        var document = ConfigDocument()
        try parse(text: text, file: file, depth: 0, into: &document)
        return document
    }

    private func parse(
        file path: String, includedFrom origin: ConfigOrigin?, depth: Int, into document: inout ConfigDocument
    ) throws(ConfigurationError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            let message = "cannot read configuration file \(path)"
            if let origin { throw ConfigurationError(at: origin, message) }
            throw ConfigurationError(file: nil, line: nil, message: message)
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw ConfigurationError(file: path, line: nil, message: "the file is not valid UTF-8")
        }
        try parse(text: text, file: path, depth: depth, into: &document)
    }

    private func parse(
        text: String, file: String, depth: Int, into document: inout ConfigDocument
    ) throws(ConfigurationError) {
        var openBlock: (name: String, origin: ConfigOrigin, parameters: [ConfigParameter])?
        var number = 0
        // "\r\n" is one Character in Swift, so both line ends are named.
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            let origin = ConfigOrigin(file: file, line: number)
            var line = ConfigLineScanner(rawLine)
            line.skipBlanks()
            if line.atEndOrComment { continue }

            if line.peek == "}" {
                line.advance()
                line.skipBlanks()
                guard openBlock != nil else { throw ConfigurationError(at: origin, "unexpected '}'") }
                guard line.atEndOrComment else { throw ConfigurationError(at: origin, "unknown tokens after '}'") }
                let block = openBlock!
                document.entries.append(
                    .block(ConfigBlock(name: block.name, origin: block.origin, parameters: block.parameters)))
                openBlock = nil
                continue
            }

            guard let name = line.word() else {
                throw ConfigurationError(at: origin, "syntax error: expected an option name")
            }
            line.skipBlanks()

            if line.peek == "{" {
                line.advance()
                line.skipBlanks()
                guard openBlock == nil else {
                    throw ConfigurationError(at: origin, "blocks cannot be nested; missing '}'?")
                }
                guard line.atEndOrComment else { throw ConfigurationError(at: origin, "unknown tokens after '{'") }
                openBlock = (name, origin, [])
                continue
            }

            let value = try line.quotedValue(origin: origin, name: name)
            line.skipBlanks()
            guard line.atEndOrComment else { throw ConfigurationError(at: origin, "unknown tokens after value") }
            let parameter = ConfigParameter(name: name, value: value, origin: origin)

            if openBlock != nil {
                if openBlock!.parameters.contains(where: { $0.name == name }) {
                    throw ConfigurationError(at: origin, "duplicate key \"\(name)\" in block \"\(openBlock!.name)\"")
                }
                openBlock!.parameters.append(parameter)
            } else if name == "include" || name == "include_optional" {
                try include(parameter, optional: name == "include_optional", depth: depth, into: &document)
            } else {
                document.entries.append(.parameter(parameter))
            }
        }
        if let openBlock {
            throw ConfigurationError(at: openBlock.origin, "block \"\(openBlock.name)\" is not closed with '}'")
        }
    }

    private func include(
        _ parameter: ConfigParameter, optional: Bool, depth: Int, into document: inout ConfigDocument
    ) throws(ConfigurationError) {
        guard depth < Self.maximumIncludeDepth else {
            throw ConfigurationError(at: parameter.origin, "includes nested too deeply (an include loop?)")
        }
        var pattern = expander.expand(parameter.value)
        if !pattern.hasPrefix("/") {
            let directory = (parameter.origin.file as NSString).deletingLastPathComponent
            pattern = directory.isEmpty ? pattern : directory + "/" + pattern
        }
        let files = Glob.matches(pattern)
        if files.isEmpty && !optional {
            throw ConfigurationError(at: parameter.origin, "included file not found: \(pattern)")
        }
        for file in files {
            try parse(file: file, includedFrom: parameter.origin, depth: depth + 1, into: &document)
        }
    }
}

/// Reads the tokens of one configuration line.
private struct ConfigLineScanner {
    private let characters: [Character]
    private var index = 0

    init(_ line: Substring) {
        var characters = Array(line)
        if characters.last == "\r" { characters.removeLast() }
        self.characters = characters
    }

    var peek: Character? { index < characters.count ? characters[index] : nil }
    var atEndOrComment: Bool { peek == nil || peek == "#" }

    mutating func advance() { index += 1 }

    mutating func skipBlanks() {
        while let c = peek, c == " " || c == "\t" { index += 1 }
    }

    /// An option name: letters, digits and underscores.
    mutating func word() -> String? {
        let start = index
        while let c = peek, c.isASCII, c.isLetter || c.isNumber || c == "_" { index += 1 }
        return index > start ? String(characters[start..<index]) : nil
    }

    /// A double-quoted value; a backslash takes the next character literally.
    mutating func quotedValue(origin: ConfigOrigin, name: String) throws(ConfigurationError) -> String {
        guard peek == "\"" else {
            throw ConfigurationError(at: origin, "expected a quoted value after \"\(name)\"")
        }
        advance()
        var value = ""
        while let c = peek {
            advance()
            switch c {
            case "\"": return value
            case "\\":
                guard let escaped = peek else { break }
                value.append(escaped)
                advance()
            default: value.append(c)
            }
        }
        throw ConfigurationError(at: origin, "unterminated string")
    }
}
