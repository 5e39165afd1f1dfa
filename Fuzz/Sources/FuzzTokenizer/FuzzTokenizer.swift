import MPDProtocol

/// Feeds arbitrary bytes to the tokenizer as one command line and checks what it answers, not
/// only that it survives (FuzzRequestFraming covers survival on the whole input path):
/// a line that tokenizes must tokenize to the same request again when its arguments are
/// written back the way a client quotes them (`"` and `\` escaped), and the request must keep
/// MPD's limits (a command word of letters, digits and `_`; at most 73 arguments).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTokenizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let request: Request
    do {
        request = try Tokenizer.tokenize(bytes)
    } catch {
        _ = error.error  // every failure has an ACK to answer with
        return 0
    }
    precondition(request.arguments.count <= Tokenizer.maximumArguments, "more arguments than MPD allows")
    precondition(request.command.utf8.first.map(isLetter) == true, "a command word must start with a letter")
    precondition(
        request.command.utf8.allSatisfy { isLetter($0) || (0x30...0x39).contains($0) || $0 == 0x5F },
        "a command word holds letters, digits and underscores only")
    precondition(
        request.invalidUTF8Arguments.allSatisfy { request.arguments.indices.contains($0) },
        "an invalid-UTF-8 index names no argument")
    // Replacement characters stand in for invalid bytes, so only valid requests round-trip.
    guard request.invalidUTF8Arguments.isEmpty else { return 0 }

    let requoted = Array(request.command.utf8) + request.arguments.flatMap { [0x20] + quoted($0) }
    let again = try? Tokenizer.tokenize(requoted)
    precondition(again == request, "a requoted request tokenized differently")
    return 0
}

private func isLetter(_ byte: UInt8) -> Bool {
    (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
}

/// An argument as a client writes it (python-mpd2, libmpdclient): in double quotes, with `"`
/// and `\` escaped by a backslash.
private func quoted(_ argument: String) -> [UInt8] {
    var bytes: [UInt8] = [0x22]
    for byte in argument.utf8 {
        if byte == 0x22 || byte == 0x5C { bytes.append(0x5C) }
        bytes.append(byte)
    }
    bytes.append(0x22)
    return bytes
}
