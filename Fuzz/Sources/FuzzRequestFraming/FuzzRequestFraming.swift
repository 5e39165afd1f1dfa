import MPDProtocol
import MusicModel
import NIOCore

/// Feeds arbitrary bytes through the whole input path of a connection: line framing,
/// command-list framing, tokenizing, and the scalar argument parsers on every token.
/// Any crash, trap or sanitizer report is a bug; wrong answers are the unit tests' job.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRequestFraming(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var buffer = ByteBuffer(bytes: UnsafeBufferPointer(start: data, count: size))
    var decoder = LineDecoder()
    // A small list limit so that the overflow path is reached as well.
    var framer = RequestFramer(maximumListSize: 512)
    var idle = false
    while true {
        let line: ByteBuffer?
        do {
            line = try decoder.nextLine(&buffer)
        } catch {
            return 0
        }
        guard let line else { return 0 }
        switch framer.consume(line.readableBytesView, isIdle: idle) {
        case .execute(let bytes):
            exercise(bytes[...])
            idle = bytes.starts(with: "idle".utf8)
        case .executeList(let lines, _):
            for bytes in lines { exercise(bytes) }
        case .noidle:
            idle = false
        case .collect:
            break
        case .close:
            return 0
        }
    }
}

private func exercise(_ bytes: ArraySlice<UInt8>) {
    guard let request = try? Tokenizer.tokenize(bytes) else { return }
    for argument in request.arguments {
        _ = try? Arguments.range(argument)
        _ = try? Arguments.unsigned(argument)
        _ = try? Arguments.integer(argument)
        _ = try? Arguments.boolean(argument)
        _ = try? Arguments.float(argument)
        _ = IdleSubsystems(name: argument)
        _ = TagType(name: argument)
    }
    _ = AckLine.format(MPDError(.unknown, request.arguments.joined(separator: " ")), index: 0, command: request.command)
}
