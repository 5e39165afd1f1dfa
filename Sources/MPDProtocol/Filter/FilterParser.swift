package import MusicModel

extension FilterExpression {
    /// Parses the `FILTER` arguments of a search command (MPD's `SongFilter::Parse`):
    /// expression arguments (first byte `(`) and old-style `TYPE VALUE` pairs, in any mix, all
    /// AND-ed. One item is returned as itself; several as ``and(_:)`` in argument order.
    ///
    /// - Parameter foldCase: the command's default: `false` for `find`, `count`, `list`;
    ///   `true` for `search` and its relatives. Old-style pairs in a folding command match
    ///   substrings, as before MPD 0.21.
    /// - Throws: ACK 2 with MPD's message: `Incorrect number of filter arguments` for no
    ///   arguments or a `TYPE` without a value, and every message of ``parse(expression:foldCase:)``.
    package static func parse(_ arguments: ArraySlice<String>, foldCase: Bool) throws(MPDError) -> FilterExpression {
        var items: [FilterExpression] = []
        var rest = arguments
        while let first = rest.first {
            if first.utf8.first == UInt8(ascii: "(") {
                items.append(try parse(expression: first, foldCase: foldCase))
                rest = rest.dropFirst()
                continue
            }
            guard rest.count >= 2 else { break }
            items.append(try parsePair(type: first, value: rest[rest.startIndex + 1], foldCase: foldCase))
            rest = rest.dropFirst(2)
        }
        guard rest.isEmpty, let first = items.first else {
            throw MPDError(.argument, "Incorrect number of filter arguments")
        }
        return items.count == 1 ? first : .and(items)
    }

    /// Parses one filter expression such as `((artist == "x") AND (album contains 'y'))`
    /// (MPD's `SongFilter::ParseExpression`), which must make up the whole string.
    ///
    /// Word operators (`contains`, `!starts_with_ci`, `eq_cs`, …) are matched without case and
    /// include their trailing space; `==`, `!=`, `=~`, `!~` need none. `_cs`/`_ci` override
    /// `foldCase`. `base`, `modified-since` and `added-since` must be lowercase; other type
    /// names are matched without case.
    ///
    /// - Throws: ACK 2 with MPD's message: `Word expected`, `Unknown filter type: X`,
    ///   `Unknown filter operator: REST`, `Quoted string expected`, `Closing quote not found`,
    ///   `Quoted value is too long`, `')' expected`, `'(' expected` (also when the string does
    ///   not start with `(`), `'AND' expected`, `'==' or '=~' expected`, `'>=' expected`,
    ///   `Number expected`, `Invalid priority value`, the audio format and ISO 8601 messages,
    ///   `Unparsed garbage after expression`; and `Filter expression nested too deeply` beyond
    ///   64 levels of parentheses, a limit MPD does not have.
    ///
    /// - Parameter dialect: `.mpd` for the protocol's commands; a smart playlist's rule also
    ///   takes sticker terms and relative times (``FilterDialect/smartPlaylist(now:)``).
    package static func parse(
        expression: String, foldCase: Bool, dialect: FilterDialect = .mpd
    ) throws(MPDError) -> FilterExpression {
        var parser = ExpressionParser(scanner: FilterScanner(expression), foldCase: foldCase, dialect: dialect)
        guard parser.scanner.peek() == UInt8(ascii: "(") else { throw MPDError(.argument, "'(' expected") }
        let expression = try parser.parseExpression(depth: 1)
        guard parser.scanner.isAtEnd else { throw MPDError(.argument, "Unparsed garbage after expression") }
        return expression
    }

    /// How many parentheses deep an expression may nest.
    ///
    /// MPD recurses without a limit; a request line of 8 KiB could nest 4000 levels, enough to
    /// exhaust the stack of a small thread here or in code that walks the result. No real
    /// client nests more than a few levels.
    static let maximumNesting = 64

    /// One old-style `TYPE VALUE` pair (MPD's `SongFilter::Parse(tag, value, fold_case)`).
    ///
    /// `AudioFormat` and `prio` have no old-style form: MPD lets them through as a tag filter
    /// of an invalid tag that matches nothing, which is rejected here instead, with the message
    /// of an unknown type.
    static func parsePair(type: String, value: String, foldCase: Bool) throws(MPDError) -> FilterExpression {
        // Before MPD 0.21 folding case also meant matching substrings; the pairs keep that.
        let predicate = StringPredicate(foldCase ? .contains : .equals, value, foldCase: foldCase)
        switch FilterType(name: type) {
        case .tag(let tag): return .tag(tag, predicate)
        case .any: return .anyTag(predicate)
        case .uri: return .uri(predicate)
        case .base:
            guard isSafeLocalURI(value) else { throw MPDError(.argument, "Bad URI") }
            return .base(value)
        case .modifiedSince: return .modifiedSince(try FilterTimestamp.parse(value))
        case .addedSince: return .addedSince(try FilterTimestamp.parse(value))
        case .audioFormat, .priority, nil: throw MPDError(.argument, "Unknown filter type")
        }
    }

    /// MPD's `uri_safe_local`: not empty, and no segment empty, `.` or `..`.
    static func isSafeLocalURI(_ uri: String) -> Bool {
        !uri.isEmpty
            && uri.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).allSatisfy {
                !$0.isEmpty && !$0.elementsEqual(".".utf8) && !$0.elementsEqual("..".utf8)
            }
    }
}

/// What a filter's `TYPE` word names (MPD's `locate_parse_type`).
enum FilterType: Equatable {
    /// A tag name.
    case tag(TagType)
    /// `any`.
    case any
    /// `file` or `filename`.
    case uri
    /// `base`.
    case base
    /// `modified-since`.
    case modifiedSince
    /// `added-since`.
    case addedSince
    /// `AudioFormat`.
    case audioFormat
    /// `prio`.
    case priority

    /// Looks `name` up; `nil` when it names nothing. `base`, `modified-since` and
    /// `added-since` are compared exactly (MPD uses `strcmp` for them), the rest without case.
    init?(name: String) {
        if ASCII.equalsIgnoringCase(name, "file") || ASCII.equalsIgnoringCase(name, "filename") {
            self = .uri
        } else if ASCII.equalsIgnoringCase(name, "any") {
            self = .any
        } else if name.utf8.elementsEqual("base".utf8) {
            self = .base
        } else if name.utf8.elementsEqual("modified-since".utf8) {
            self = .modifiedSince
        } else if name.utf8.elementsEqual("added-since".utf8) {
            self = .addedSince
        } else if ASCII.equalsIgnoringCase(name, "AudioFormat") {
            self = .audioFormat
        } else if ASCII.equalsIgnoringCase(name, "prio") {
            self = .priority
        } else if let tag = ASCII.tag(named: name) {
            self = .tag(tag)
        } else {
            return nil
        }
    }
}

/// The recursive-descent parser of one expression argument, reading bytes as MPD's
/// `SongFilter::ParseExpression` does and failing at the same points with the same messages.
struct ExpressionParser {
    /// The position in the argument.
    var scanner: FilterScanner
    /// The command's default for string comparisons.
    let foldCase: Bool
    /// Which terms beyond MPD's are read.
    var dialect: FilterDialect = .mpd

    /// Parses `( … )` at the scanner, which must be at `(`, and the blanks after it.
    mutating func parseExpression(depth: Int) throws(MPDError) -> FilterExpression {
        guard depth <= FilterExpression.maximumNesting else {
            throw MPDError(.argument, "Filter expression nested too deeply")
        }
        scanner.advance()
        scanner.skipBlanks()

        if scanner.peek() == UInt8(ascii: "(") {
            let first = try parseExpression(depth: depth + 1)
            if closeParenthesis() { return first }
            var operands = [first]
            while true {
                guard try expectWord() == "AND" else { throw MPDError(.argument, "'AND' expected") }
                // MPD (built without assertions) would skip whatever byte stands here.
                guard scanner.peek() == UInt8(ascii: "(") else { throw MPDError(.argument, "'(' expected") }
                operands.append(try parseExpression(depth: depth + 1))
                if closeParenthesis() { return .and(operands) }
            }
        }

        if scanner.peek() == UInt8(ascii: "!") {
            scanner.advance()
            scanner.skipBlanks()
            guard scanner.peek() == UInt8(ascii: "(") else { throw MPDError(.argument, "'(' expected") }
            let operand = try parseExpression(depth: depth + 1)
            try expectClosingParenthesis()
            return .not(operand)
        }

        let name = try expectWord()
        if case .smartPlaylist(let now) = dialect, name == "sticker", scanner.peek() == UInt8(ascii: ":") {
            return try parseSticker(now: now)
        }
        guard let type = FilterType(name: name) else { throw MPDError(.argument, "Unknown filter type: \(name)") }
        switch type {
        case .modifiedSince, .addedSince:
            let value = try expectQuoted()
            try expectClosingParenthesis()
            let time = try timestamp(value)
            return type == .modifiedSince ? .modifiedSince(time) : .addedSince(time)
        case .base:
            let value = try expectQuoted()
            try expectClosingParenthesis()
            return .base(value)
        case .audioFormat:
            let isMask: Bool
            switch (scanner.peek(), scanner.peek(1)) {
            case (UInt8(ascii: "="), UInt8(ascii: "=")): isMask = false
            case (UInt8(ascii: "="), UInt8(ascii: "~")): isMask = true
            default: throw MPDError(.argument, "'==' or '=~' expected")
            }
            scanner.advance(2)
            scanner.skipBlanks()
            let operand = try expectQuoted()
            let pattern: AudioFormatPattern
            do {
                pattern = try AudioFormatPattern.parse(operand, mask: isMask)
            } catch {
                // Every failure of a format is a bad argument; MPD sends its message as it is.
                throw MPDError(.argument, error.message)
            }
            try expectClosingParenthesis()
            return .audioFormat(pattern)
        case .priority:
            return .priorityAtLeast(try parsePriority())
        case .tag(let tag):
            let predicate = try parseStringPredicate()
            try expectClosingParenthesis()
            return .tag(tag, predicate)
        case .any:
            let predicate = try parseStringPredicate()
            try expectClosingParenthesis()
            return .anyTag(predicate)
        case .uri:
            let predicate = try parseStringPredicate()
            try expectClosingParenthesis()
            return .uri(predicate)
        }
    }

    /// The word operators: the text including its trailing space, and what it means.
    /// `foldCase` `nil` takes the command's default.
    private static let wordOperators:
        [(text: StaticString, operator: StringPredicate.Operator, negated: Bool, foldCase: Bool?)] = [
            ("contains ", .contains, false, nil), ("!contains ", .contains, true, nil),
            ("contains_cs ", .contains, false, false), ("!contains_cs ", .contains, true, false),
            ("contains_ci ", .contains, false, true), ("!contains_ci ", .contains, true, true),
            ("starts_with ", .startsWith, false, nil), ("!starts_with ", .startsWith, true, nil),
            ("starts_with_cs ", .startsWith, false, false), ("!starts_with_cs ", .startsWith, true, false),
            ("starts_with_ci ", .startsWith, false, true), ("!starts_with_ci ", .startsWith, true, true),
            ("eq_cs ", .equals, false, false), ("!eq_cs ", .equals, true, false),
            ("eq_ci ", .equals, false, true), ("!eq_ci ", .equals, true, true),
        ]

    /// A string operator and its quoted operand (MPD's `ParseStringFilter`).
    private mutating func parseStringPredicate() throws(MPDError) -> StringPredicate {
        for word in Self.wordOperators where scanner.skip(prefixIgnoringCase: word.text) {
            scanner.skipBlanks()
            let value = try expectQuoted()
            return StringPredicate(word.operator, value, negated: word.negated, foldCase: word.foldCase ?? foldCase)
        }
        let op: StringPredicate.Operator
        let negated: Bool
        switch (scanner.peek(), scanner.peek(1)) {
        case (UInt8(ascii: "="), UInt8(ascii: "~")): (op, negated) = (.regex, false)
        case (UInt8(ascii: "!"), UInt8(ascii: "~")): (op, negated) = (.regex, true)
        case (UInt8(ascii: "="), UInt8(ascii: "=")): (op, negated) = (.equals, false)
        case (UInt8(ascii: "!"), UInt8(ascii: "=")): (op, negated) = (.equals, true)
        default: throw MPDError(.argument, "Unknown filter operator: \(scanner.remainder)")
        }
        scanner.advance(2)
        scanner.skipBlanks()
        let value = try expectQuoted()
        return StringPredicate(op, value, negated: negated, foldCase: foldCase)
    }

    /// A time of `modified-since` and `added-since`: MPD's forms, and in a smart playlist's
    /// rule also a time relative to now (`-30d`).
    private func timestamp(_ value: String) throws(MPDError) -> Int64 {
        if case .smartPlaylist(let now) = dialect, let time = RelativeTime.resolve(value, now: now) { return time }
        return try FilterTimestamp.parse(value)
    }

    /// `:NAME OP VALUE)` after the word `sticker` (smart playlist rules only): a sticker of the
    /// song compared as an integer with a number or a relative time, quoted or bare.
    private mutating func parseSticker(now: Int64) throws(MPDError) -> FilterExpression {
        scanner.advance()
        let start = scanner.index
        while StickerName.isNameByte(scanner.peek()) { scanner.advance() }
        guard scanner.index > start else { throw MPDError(.argument, "Sticker name expected after 'sticker:'") }
        let name = String(decoding: scanner.bytes[start..<scanner.index], as: UTF8.self)
        scanner.skipBlanks()
        let comparison: StickerValuePredicate.Comparison
        switch (scanner.peek(), scanner.peek(1)) {
        case (UInt8(ascii: "="), UInt8(ascii: "=")): comparison = .equal
        case (UInt8(ascii: "!"), UInt8(ascii: "=")): comparison = .notEqual
        case (UInt8(ascii: "<"), UInt8(ascii: "=")): comparison = .lessOrEqual
        case (UInt8(ascii: ">"), UInt8(ascii: "=")): comparison = .greaterOrEqual
        case (UInt8(ascii: "<"), _): comparison = .less
        case (UInt8(ascii: ">"), _): comparison = .greater
        default:
            throw MPDError(.argument, "Unknown sticker operator: \(scanner.remainder); expected ==, !=, <, <=, >, >=")
        }
        scanner.advance(comparison.rawValue.utf8.count)
        scanner.skipBlanks()
        let operand: String
        if scanner.peek() == UInt8(ascii: "\"") || scanner.peek() == UInt8(ascii: "'") {
            operand = try expectQuoted()
        } else {
            let start = scanner.index
            while Self.isBareOperandByte(scanner.peek()) { scanner.advance() }
            operand = String(decoding: scanner.bytes[start..<scanner.index], as: UTF8.self)
            scanner.skipBlanks()
        }
        guard let value = Int64(operand) ?? RelativeTime.resolve(operand, now: now) else {
            throw MPDError(.argument, "Integer or relative time expected: \(operand)")
        }
        try expectClosingParenthesis()
        return .sticker(name, StickerValuePredicate(comparison, value))
    }

    /// A byte of an unquoted sticker operand: a sign, a digit or a letter (`-30d`).
    private static func isBareOperandByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || ASCII.isDigit(byte) || isWordByte(byte)
    }

    /// `>= N` and the closing parenthesis, which must follow the number directly.
    private mutating func parsePriority() throws(MPDError) -> UInt8 {
        guard scanner.peek() == UInt8(ascii: ">"), scanner.peek(1) == UInt8(ascii: "=") else {
            throw MPDError(.argument, "'>=' expected")
        }
        scanner.advance(2)
        scanner.skipBlanks()
        guard let number = CNumber.strtoul(scanner.bytes, from: scanner.index) else {
            throw MPDError(.argument, "Number expected")
        }
        guard number.value <= 0xFF else { throw MPDError(.argument, "Invalid priority value") }
        scanner.index = number.end
        try expectClosingParenthesis()
        return UInt8(number.value)
    }

    /// MPD's `ExpectWord`: `[A-Za-z_-]+` and the blanks after it.
    private mutating func expectWord() throws(MPDError) -> String {
        let start = scanner.index
        while Self.isWordByte(scanner.peek()) { scanner.advance() }
        guard scanner.index > start else { throw MPDError(.argument, "Word expected") }
        let word = String(decoding: scanner.bytes[start..<scanner.index], as: UTF8.self)
        scanner.skipBlanks()
        return word
    }

    /// MPD's `IsTagNameChar`: an ASCII letter, `_` or `-`.
    private static func isWordByte(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "-")
    }

    /// MPD's `ExpectQuoted`: a value in `"` or `'` in which a backslash takes the next byte
    /// literally, at most 4095 bytes, and the blanks after it.
    private mutating func expectQuoted() throws(MPDError) -> String {
        let quote = scanner.peek()
        guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw MPDError(.argument, "Quoted string expected")
        }
        scanner.advance()
        var value: [UInt8] = []
        while scanner.peek() != quote {
            if scanner.peek() == UInt8(ascii: "\\") { scanner.advance() }
            guard !scanner.isAtEnd else { throw MPDError(.argument, "Closing quote not found") }
            value.append(scanner.peek())
            scanner.advance()
            // MPD copies into a 4096-byte buffer and gives up when it is full.
            guard value.count < 4096 else { throw MPDError(.argument, "Quoted value is too long") }
        }
        scanner.advance()
        scanner.skipBlanks()
        return String(decoding: value, as: UTF8.self)
    }

    /// `)` and the blanks after it, else `')' expected`.
    private mutating func expectClosingParenthesis() throws(MPDError) {
        guard closeParenthesis() else { throw MPDError(.argument, "')' expected") }
    }

    /// Consumes `)` and the blanks after it when the scanner is at one.
    private mutating func closeParenthesis() -> Bool {
        guard scanner.peek() == UInt8(ascii: ")") else { return false }
        scanner.advance()
        scanner.skipBlanks()
        return true
    }
}
