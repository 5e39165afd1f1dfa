/// Decides what each received line means before any command runs: MPD's `Client::ProcessLine`.
///
/// It owns the command-list state of one connection and knows nothing about command semantics,
/// so it can be tested and fuzzed alone. Rules, in MPD's order:
/// 1. a line whose first byte is not `a`–`z` closes the connection silently;
/// 2. an exact `idle` or `noidle` inside a command list closes the connection;
/// 3. an exact `noidle` is handed to the session (which answers `OK` only while idle);
/// 4. any other line while idle closes the connection;
/// 5. inside a list, `command_list_end` runs it and every other line is collected, and a list
///    that grows past its size limit closes the connection;
/// 6. `command_list_begin` and `command_list_ok_begin` start a list;
/// 7. anything else is one command.
package struct RequestFramer: Sendable {
    /// What the session must do with a line.
    package enum Action: Sendable, Equatable {
        /// Run one command line.
        case execute([UInt8])
        /// Run the collected command list; `okMode` asks for `list_OK` after each success.
        case executeList(CommandListLines, okMode: Bool)
        /// The client sent `noidle`.
        case noidle
        /// Nothing to do now (a list began or grew).
        case collect
        /// Close the connection without an answer.
        case close(CloseReason)
    }

    /// Why a connection is closed without an answer; for the log.
    package enum CloseReason: Sendable, Equatable, CustomStringConvertible {
        /// The first byte is not a lowercase ASCII letter.
        case malformedLine
        /// `idle` or `noidle` inside a command list.
        case idleInCommandList
        /// A command other than `noidle` while idle.
        case commandDuringIdle
        /// The command list exceeded `max_command_list_size`.
        case commandListTooLarge

        package var description: String {
            switch self {
            case .malformedLine: "malformed command"
            case .idleInCommandList: "idle/noidle not possible in command list"
            case .commandDuringIdle: "command during idle"
            case .commandListTooLarge: "command list size is larger than the maximum"
            }
        }
    }

    private struct CommandList {
        var okMode: Bool
        var lines = CommandListLines()
    }

    private let maximumListSize: Int
    private var list: CommandList?

    /// Creates the framer of one connection.
    /// - Parameter maximumListSize: `max_command_list_size` in bytes; each collected line counts
    ///   its length plus one, as in MPD.
    package init(maximumListSize: Int) {
        self.maximumListSize = maximumListSize
    }

    /// Whether a command list is being collected.
    package var isCollectingList: Bool { list != nil }

    /// Classifies one line.
    /// - Parameters:
    ///   - line: the line without its newline and trailing blanks.
    ///   - isIdle: whether the client is waiting in `idle`.
    package mutating func consume<Bytes: Collection<UInt8>>(_ line: Bytes, isIdle: Bool) -> Action {
        // The rules run on a concrete buffer: called from another module, the generic code is
        // not specialised, and comparing each line with the five words byte by byte through
        // the protocol witnesses cost more than the rest of a `ping` in a command list.
        if let action = line.withContiguousStorageIfAvailable({ consume(bytes: $0, isIdle: isIdle) }) {
            return action
        }
        return Array(line).withUnsafeBufferPointer { consume(bytes: $0, isIdle: isIdle) }
    }

    /// Classifies one line given as raw bytes (a received `ByteBuffer`'s readable bytes), as
    /// the generic `consume(_:isIdle:)` does, without going through a generic collection.
    package mutating func consume(_ line: UnsafeRawBufferPointer, isIdle: Bool) -> Action {
        consume(bytes: line.assumingMemoryBound(to: UInt8.self), isIdle: isIdle)
    }

    private mutating func consume(bytes line: UnsafeBufferPointer<UInt8>, isIdle: Bool) -> Action {
        guard let first = line.first, (0x61...0x7A).contains(first) else { return .close(.malformedLine) }
        let isIdleWord = line.isWord("idle")
        let isNoidleWord = line.isWord("noidle")

        if list != nil, isIdleWord || isNoidleWord { return .close(.idleInCommandList) }
        if isNoidleWord { return .noidle }
        if isIdle { return .close(.commandDuringIdle) }

        if list != nil {
            if line.isWord("command_list_end") {
                let finished = list!
                list = nil
                return .executeList(finished.lines, okMode: finished.okMode)
            }
            if list!.lines.size + line.count + 1 > maximumListSize {
                list = nil
                return .close(.commandListTooLarge)
            }
            // Appended in place: a mutated copy would copy every collected line each time.
            list!.lines.append(line)
            return .collect
        }
        if line.isWord("command_list_begin") {
            list = CommandList(okMode: false)
            return .collect
        }
        if line.isWord("command_list_ok_begin") {
            list = CommandList(okMode: true)
            return .collect
        }
        return .execute(Array(line))
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether the bytes are exactly `word`; the lengths are compared first, which settles
    /// almost every line.
    fileprivate func isWord(_ word: StaticString) -> Bool {
        count == word.utf8CodeUnitCount
            && elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
    }
}

/// The lines of a command list, kept one after another in one array: a list of thousands of
/// lines is thousands of small arrays otherwise, each allocated, copied and freed.
package struct CommandListLines: RandomAccessCollection, Sendable, Equatable, ExpressibleByArrayLiteral {
    private var bytes: [UInt8] = []
    /// Where each line ends in ``bytes``; line `i` starts where line `i - 1` ends.
    private var ends: [Int] = []

    /// An empty list.
    package init() {}

    /// A list of `lines`, in order.
    package init(arrayLiteral lines: [UInt8]...) {
        for line in lines { line.withUnsafeBufferPointer { append($0) } }
    }

    /// The bytes the list counts against `max_command_list_size`: each line and its newline,
    /// as MPD counts them.
    var size: Int { bytes.count + ends.count }

    /// Adds a line at the end.
    mutating func append(_ line: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: line)
        ends.append(bytes.count)
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { ends.count }

    /// The bytes of line `index`, sharing the list's storage.
    package subscript(index: Int) -> ArraySlice<UInt8> {
        bytes[(index == 0 ? 0 : ends[index - 1])..<ends[index]]
    }
}
