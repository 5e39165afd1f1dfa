import MPDProtocol
import MusicModel

/// Feeds arbitrary bytes to the filter parsers: the whole input as one expression, its lines
/// as an argument list (as a client could send them, quoted), and the tokenized request's
/// arguments to the `find`, `list` and `count` argument parsers. Any crash, trap or sanitizer
/// report is a bug; wrong answers are the unit tests' job.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFilterExpression(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)

    for foldCase in [false, true] {
        let alone = Result { () throws(MPDError) in try FilterExpression.parse(expression: text, foldCase: foldCase) }
        // An argument that starts with "(" is that expression and nothing else.
        if text.utf8.first == UInt8(ascii: "(") {
            let asArgument = Result { () throws(MPDError) in try FilterExpression.parse([text], foldCase: foldCase) }
            precondition(alone == asArgument, "an expression argument parsed differently from the expression")
        }
    }

    // A smart playlist's rule: its own terms, and the file that holds it.
    _ = try? FilterExpression.parse(expression: text, foldCase: true, dialect: .smartPlaylist(now: 1_700_000_000))
    _ = try? SmartPlaylistDefinition(fileText: text)

    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    exercise(lines[...])
    if let request = try? Tokenizer.tokenize(bytes) {
        exercise(request.arguments[...])
    }
    return 0
}

private func exercise(_ arguments: ArraySlice<String>) {
    for foldCase in [false, true] {
        _ = try? FilterExpression.parse(arguments, foldCase: foldCase)
        _ = try? DatabaseSelection.parse(arguments, foldCase: foldCase, allowsPosition: foldCase)
        _ = try? CountSelection.parse(arguments, foldCase: foldCase)
    }
    _ = try? ListSelection.parse(arguments)
    _ = try? SmartPlaylistDefinition(arguments: arguments)
    if let first = arguments.first {
        _ = try? SortOrder.parse(first, allowsPriority: true)
    }
}
