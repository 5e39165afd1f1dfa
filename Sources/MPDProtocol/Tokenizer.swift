/// One tokenized command line: the command word and its arguments.
package struct Request: Sendable, Equatable {
    /// The command word as the client sent it (not yet looked up).
    package let command: String
    /// The arguments, unquoted and unescaped.
    package let arguments: [String]
    /// Indices of arguments whose bytes were not valid UTF-8.
    ///
    /// MPD passes such bytes through; Swift strings cannot hold them, so the argument carries
    /// U+FFFD in their place and handlers that must reject invalid UTF-8 (playlist names,
    /// channel names) check this set.
    package let invalidUTF8Arguments: Set<Int>

    /// Creates a request from already-tokenized parts.
    package init(command: String, arguments: [String], invalidUTF8Arguments: Set<Int> = []) {
        self.command = command
        self.arguments = arguments
        self.invalidUTF8Arguments = invalidUTF8Arguments
    }
}

/// Splits a command line into words exactly as MPD's `Tokenizer` does.
///
/// The rules (MPD `src/util/Tokenizer.cxx`): every byte `<= 0x20` separates; the command word is
/// an ASCII letter followed by letters, digits and `_`; an argument is either a run of bytes
/// above 0x20 that contains neither `"` nor `'`, or a double-quoted string in which a backslash
/// escapes the next byte and whose closing quote must be followed by a blank or the end.
package enum Tokenizer {
    /// The most arguments one command may have. MPD's `COMMAND_ARGV_MAX` is `2 + 36 * 2` = 74
    /// in 0.24, and it counts the command name too (checked against MPD 0.23, whose 31 tags
    /// give 64: 63 arguments pass, the 64th is too many).
    package static let maximumArguments = 73

    /// Why a line could not be tokenized.
    package enum Failure: Error, Sendable, Equatable {
        /// The command word is malformed. MPD answers `ACK [5@n] {} message` and then closes
        /// the connection, because such a client does not speak the protocol.
        case badCommandWord(String)
        /// An argument is malformed: `ACK [5@n] {} message`, and the connection stays open.
        case badArgument(String)
        /// More than ``Tokenizer/maximumArguments`` arguments: `ACK [2@n] {} Too many arguments`.
        case tooManyArguments

        /// The ACK this failure is answered with.
        package var error: MPDError {
            switch self {
            case .badCommandWord(let message), .badArgument(let message): MPDError(.unknown, message)
            case .tooManyArguments: MPDError(.argument, "Too many arguments")
            }
        }
    }

    /// Tokenizes one line (without its newline).
    ///
    /// A NUL byte ends the line, as it does for MPD's C strings.
    /// - Throws: ``Failure`` with MPD's message.
    package static func tokenize<Bytes: Collection<UInt8>>(_ line: Bytes) throws(Failure) -> Request {
        // The rules run on a concrete buffer, without a copy where the bytes are contiguous:
        // called from another module, generic code is not specialised, and every byte went
        // through the collection's witnesses.
        func attempt(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Request, Failure> {
            Result { () throws(Failure) in try tokenize(bytes: bytes) }
        }
        let result = line.withContiguousStorageIfAvailable(attempt) ?? Array(line).withUnsafeBufferPointer(attempt)
        return try result.get()
    }

    private static func tokenize(bytes line: UnsafeBufferPointer<UInt8>) throws(Failure) -> Request {
        let bytes = UnsafeBufferPointer(rebasing: line[..<(line.firstIndex(of: 0) ?? line.count)])
        var cursor = 0
        skipBlanks(bytes, &cursor)

        let command = try commandWord(bytes, &cursor)
        var arguments: [String] = []
        var invalid: Set<Int> = []
        while cursor < bytes.count {
            if bytes[cursor] == UInt8(ascii: "\"") {
                try append(quoted(bytes, &cursor), to: &arguments, invalid: &invalid)
            } else {
                try append(unquoted(bytes, &cursor), to: &arguments, invalid: &invalid)
            }
        }
        return Request(command: command, arguments: arguments, invalidUTF8Arguments: invalid)
    }

    /// Adds an argument read from the line; a malformed one was reported before the count,
    /// as in MPD.
    private static func append(
        _ argument: some Collection<UInt8>, to arguments: inout [String], invalid: inout Set<Int>
    ) throws(Failure) {
        if arguments.count == maximumArguments { throw .tooManyArguments }
        if let string = String(validating: argument, as: UTF8.self) {
            arguments.append(string)
        } else {
            invalid.insert(arguments.count)
            arguments.append(String(decoding: argument, as: UTF8.self))
        }
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte <= 0x20 }

    private static func skipBlanks(_ bytes: UnsafeBufferPointer<UInt8>, _ cursor: inout Int) {
        while cursor < bytes.count, isBlank(bytes[cursor]) { cursor += 1 }
    }

    private static func commandWord(_ bytes: UnsafeBufferPointer<UInt8>, _ cursor: inout Int) throws(Failure) -> String
    {
        guard cursor < bytes.count else { throw .badCommandWord("No command given") }
        guard isLetter(bytes[cursor]) else { throw .badCommandWord("Letter expected") }
        let start = cursor
        cursor += 1
        while cursor < bytes.count, !isBlank(bytes[cursor]) {
            let byte = bytes[cursor]
            guard isLetter(byte) || (0x30...0x39).contains(byte) || byte == UInt8(ascii: "_") else {
                throw .badCommandWord("Invalid word character")
            }
            cursor += 1
        }
        let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<cursor]), as: UTF8.self)
        skipBlanks(bytes, &cursor)
        return word
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    private static func isUnquotedCharacter(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "'")
    }

    private static func unquoted(
        _ bytes: UnsafeBufferPointer<UInt8>, _ cursor: inout Int
    ) throws(Failure) -> UnsafeBufferPointer<UInt8> {
        let start = cursor
        while cursor < bytes.count, !isBlank(bytes[cursor]) {
            guard isUnquotedCharacter(bytes[cursor]) else { throw .badArgument("Invalid unquoted character") }
            cursor += 1
        }
        let word = UnsafeBufferPointer(rebasing: bytes[start..<cursor])
        skipBlanks(bytes, &cursor)
        return word
    }

    private static func quoted(_ bytes: UnsafeBufferPointer<UInt8>, _ cursor: inout Int) throws(Failure) -> [UInt8] {
        var value: [UInt8] = []
        cursor += 1  // the opening quote
        while true {
            guard cursor < bytes.count else { throw .badArgument("Missing closing '\"'") }
            var byte = bytes[cursor]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                cursor += 1
                guard cursor < bytes.count else { throw .badArgument("Missing closing '\"'") }
                byte = bytes[cursor]
            }
            value.append(byte)
            cursor += 1
        }
        cursor += 1  // the closing quote
        if cursor < bytes.count, !isBlank(bytes[cursor]) {
            throw .badArgument("Space expected after closing '\"'")
        }
        skipBlanks(bytes, &cursor)
        return value
    }
}
