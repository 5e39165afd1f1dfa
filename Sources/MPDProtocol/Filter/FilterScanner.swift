import MusicModel

/// A read position in one filter argument, with the conventions of the C strings MPD parses:
/// reading past the end yields a NUL byte, and an embedded NUL ends the text.
///
/// MPD's parsers peek one or two bytes ahead without bounds checks because a C string always
/// ends in NUL; returning 0 past the end lets this parser be written the same way and fail in
/// the same places.
struct FilterScanner {
    /// The text up to its first NUL.
    let bytes: [UInt8]
    /// The index of the next byte to read.
    var index: Int

    /// Starts reading `bytes` (cut at the first NUL) at `index`.
    init(_ bytes: [UInt8], at index: Int = 0) {
        if let nul = bytes.firstIndex(of: 0) {
            self.bytes = Array(bytes[..<nul])
        } else {
            self.bytes = bytes
        }
        self.index = index
    }

    /// Starts reading the UTF-8 bytes of `text`.
    init(_ text: String) {
        self.init(Array(text.utf8))
    }

    /// The byte `offset` places ahead of the read position, or 0 past the end.
    func peek(_ offset: Int = 0) -> UInt8 {
        let position = index + offset
        return position < bytes.count ? bytes[position] : 0
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { index >= bytes.count }

    /// The unread bytes as text, for messages that quote them.
    var remainder: String { String(decoding: bytes[min(index, bytes.count)...], as: UTF8.self) }

    /// Moves past `count` bytes.
    mutating func advance(_ count: Int = 1) { index += count }

    /// MPD's `StripLeft`: skips the bytes 0x01...0x20.
    mutating func skipBlanks() {
        while index < bytes.count, bytes[index] <= 0x20 { index += 1 }
    }

    /// Whether the unread text starts with `prefix`, ignoring ASCII case
    /// (`StringAfterPrefixIgnoreCase`); moves past it when it does.
    mutating func skip(prefixIgnoringCase prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        let bytes = self.bytes
        let start = index
        guard bytes.count - start >= count else { return false }
        let matches = prefix.withUTF8Buffer { expected in
            expected.indices.allSatisfy { ASCII.lowercased(bytes[start + $0]) == ASCII.lowercased(expected[$0]) }
        }
        if matches { index += count }
        return matches
    }
}

/// The C library and MPD utility behaviours the filter syntax is defined by.
enum ASCII {
    /// The byte with `A`...`Z` mapped to `a`...`z`.
    static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
    }

    /// `StringEqualsCaseASCII`: equal when ASCII letters are compared without case.
    static func equalsIgnoringCase(_ text: some StringProtocol, _ other: String) -> Bool {
        text.utf8.elementsEqual(other.utf8) { lowercased($0) == lowercased($1) }
    }

    /// A tag by name as MPD's `tag_name_parse_i` finds it: ASCII letters compared without case.
    ///
    /// ``TagType/init(name:)`` folds with Unicode rules, under which a few non-ASCII letters
    /// (the Kelvin sign, for one) would become ASCII and match a name MPD rejects.
    static func tag(named name: some StringProtocol) -> TagType? {
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        return TagType(name: String(name))
    }

    /// C's `isspace` in the C locale.
    static func isSpace(_ byte: UInt8) -> Bool { CNumber.isSpace(byte) }

    /// Whether the byte is a decimal digit.
    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
