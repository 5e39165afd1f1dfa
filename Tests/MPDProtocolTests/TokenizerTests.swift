import MPDProtocol
import Testing

@Suite("Tokenizer")
struct TokenizerTests {
    private func tokens(_ line: String) throws -> Request {
        try Tokenizer.tokenize(Array(line.utf8))
    }

    private func failure(_ line: [UInt8]) -> Tokenizer.Failure? {
        do {
            _ = try Tokenizer.tokenize(line)
            return nil
        } catch {
            return error
        }
    }

    private func failure(_ line: String) -> Tokenizer.Failure? { failure(Array(line.utf8)) }

    @Test("a bare command has no arguments")
    func bareCommand() throws {
        #expect(try tokens("status") == Request(command: "status", arguments: []))
    }

    @Test("unquoted arguments are split on any byte up to 0x20")
    func unquoted() throws {
        #expect(try tokens("find artist\tFoo  bar\u{0B}baz").arguments == ["artist", "Foo", "bar", "baz"])
    }

    @Test("quoted arguments keep blanks and unescape backslashes")
    func quoted() throws {
        let request = try tokens(#"find "(Artist == \"foo\\'bar\\\"\")" "" "a b""#)
        #expect(request.arguments == [#"(Artist == "foo\'bar\"")"#, "", "a b"])
    }

    @Test("a backslash escapes any byte, so \\n is the letter n")
    func escapes() throws {
        #expect(try tokens(#"x "a\nb\\c\qd""#).arguments == ["anb\\cqd"])
    }

    @Test("UTF-8 passes through unquoted and quoted")
    func utf8() throws {
        #expect(try tokens("find title Björk \"東京 事変\"").arguments == ["title", "Björk", "東京 事変"])
    }

    @Test("invalid UTF-8 is kept as U+FFFD and flagged")
    func invalidUTF8() throws {
        let request = try Tokenizer.tokenize(Array("tagtypes enable ".utf8) + [0xFF, 0x41])
        #expect(request.arguments == ["enable", "\u{FFFD}A"])
        #expect(request.invalidUTF8Arguments == [1])
    }

    @Test("a NUL byte ends the line, as for MPD's C strings")
    func nulEndsLine() throws {
        #expect(try Tokenizer.tokenize(Array("ping".utf8) + [0] + Array(" extra".utf8)).arguments == [])
    }

    @Test("command word errors close the connection")
    func commandWordErrors() {
        #expect(failure("play!") == .badCommandWord("Invalid word character"))
        #expect(failure("1play") == .badCommandWord("Letter expected"))
        #expect(failure("") == .badCommandWord("No command given"))
        #expect(failure("pla-y") == .badCommandWord("Invalid word character"))
    }

    @Test("upper case and underscores and digits are word characters")
    func wordCharacters() throws {
        #expect(try tokens("Foo_Bar9 x").command == "Foo_Bar9")
    }

    @Test("argument errors keep MPD's messages")
    func argumentErrors() {
        #expect(failure(#"find "unterminated"#) == .badArgument("Missing closing '\"'"))
        #expect(failure(#"find "ends with backslash\"#) == .badArgument("Missing closing '\"'"))
        #expect(failure("find it's") == .badArgument("Invalid unquoted character"))
        #expect(failure("find 'quoted'") == .badArgument("Invalid unquoted character"))
        #expect(failure(#"find ab"c"#) == .badArgument("Invalid unquoted character"))
        #expect(failure(#"find "a"b"#) == .badArgument("Space expected after closing '\"'"))
    }

    @Test("73 arguments are accepted, the 74th is too many (MPD counts the command name)")
    func argumentLimit() throws {
        let args73 = Array(repeating: "a", count: 73).joined(separator: " ")
        #expect(try tokens("ping " + args73).arguments.count == 73)
        #expect(failure("ping " + args73 + " a") == .tooManyArguments)
        #expect(Tokenizer.Failure.tooManyArguments.error == MPDError(.argument, "Too many arguments"))
    }

    @Test("tokenizer failures map to ACK 5 with the message")
    func failureCodes() {
        #expect(Tokenizer.Failure.badArgument("x").error.code == .unknown)
        #expect(Tokenizer.Failure.badCommandWord("y").error.code == .unknown)
    }
}
