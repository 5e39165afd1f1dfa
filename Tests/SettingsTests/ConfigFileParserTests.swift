import Foundation
import Settings
import Testing

@Suite("mpd.conf syntax")
struct ConfigFileParserTests {
    private let parser = ConfigFileParser(environment: ["HOME": "/home/u"])

    private func parameters(_ text: String) throws -> [String] {
        try parser.parse(text: text, file: "t.conf").entries.map { entry in
            switch entry {
            case .parameter(let p): "\(p.origin.line) \(p.name)=\(p.value)"
            case .block(let b):
                "\(b.origin.line) \(b.name){" + b.parameters.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
                    + "}"
            }
        }
    }

    private func error(_ text: String) -> String? {
        do {
            _ = try parser.parse(text: text, file: "t.conf")
            return nil
        } catch {
            return error.description
        }
    }

    @Test("lines, comments, blank lines and blocks")
    func lines() throws {
        let text = """
            # a comment
            music_directory "~/music"   # trailing comment

            \tport\t"6601"
            audio_output {
                type "null"
                name "My \\"quiet\\" output"   # comment in a block
            }
            empty ""
            """
        #expect(
            try parameters(text) == [
                "2 music_directory=~/music", "4 port=6601", "5 audio_output{type=null,name=My \"quiet\" output}",
                "9 empty=",
            ])
    }

    @Test("CRLF line ends are accepted")
    func crlf() throws {
        #expect(try parameters("port \"1\"\r\nlog_level \"info\"\r\n") == ["1 port=1", "2 log_level=info"])
    }

    @Test(
        "errors name the file and line",
        arguments: [
            ("port 6600", "t.conf:1: expected a quoted value after \"port\""),
            ("\n\nport \"6600", "t.conf:3: unterminated string"),
            ("port \"6600\" extra", "t.conf:1: unknown tokens after value"),
            ("\"port\" \"1\"", "t.conf:1: syntax error: expected an option name"),
            ("}", "t.conf:1: unexpected '}'"),
            ("a {\n b \"1\"\n b \"2\"\n}", "t.conf:3: duplicate key \"b\" in block \"a\""),
            ("a {\n b \"1\"\n", "t.conf:1: block \"a\" is not closed with '}'"),
            ("a {\n b {\n}\n}", "t.conf:2: blocks cannot be nested; missing '}'?"),
            ("a { x\n}", "t.conf:1: unknown tokens after '{'"),
            ("a {\n} x", "t.conf:2: unknown tokens after '}'"),
            ("include \"does-not-exist.conf\"", "t.conf:1: included file not found: does-not-exist.conf"),
        ])
    func errors(text: String, expected: String) {
        #expect(error(text) == expected)
    }

    @Test("include and include_optional read files relative to the including file, with globs")
    func includes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tonearm-include-\(getpid())")
        try FileManager.default.createDirectory(
            at: directory.appendingPathComponent("conf.d"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "port \"1\"\ninclude \"conf.d/*.conf\"\ninclude_optional \"missing.conf\"\nport \"4\"\n"
            .write(to: directory.appendingPathComponent("main.conf"), atomically: true, encoding: .utf8)
        try "port \"2\"\n".write(
            to: directory.appendingPathComponent("conf.d/a.conf"), atomically: true, encoding: .utf8)
        try "port \"3\"\n".write(
            to: directory.appendingPathComponent("conf.d/b.conf"), atomically: true, encoding: .utf8)
        let document = try parser.parse(file: directory.appendingPathComponent("main.conf").path)
        let values = document.entries.compactMap { entry -> String? in
            if case .parameter(let p) = entry { return p.value }
            return nil
        }
        #expect(values == ["1", "2", "3", "4"])
    }

    @Test("an include loop is an error, not a hang")
    func includeLoop() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tonearm-loop-\(getpid()).conf")
        try "include \"\(file.lastPathComponent)\"\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(throws: ConfigurationError.self) { try parser.parse(file: file.path) }
    }

    @Test("a missing or non-UTF-8 file is an error")
    func unreadable() throws {
        #expect(
            throws: ConfigurationError(
                file: nil, line: nil, message: "cannot read configuration file /nonexistent.conf")
        ) {
            try parser.parse(file: "/nonexistent.conf")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tonearm-latin1-\(getpid()).conf")
        try Data([0x70, 0x20, 0x22, 0xE9, 0x22, 0x0A]).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(throws: ConfigurationError.self) { try parser.parse(file: file.path) }
    }
}
