import Settings

/// libFuzzer entry point: any bytes as a configuration file must either load or fail with a
/// ``ConfigurationError``, never crash or hang.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfigParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let text = String(validating: UnsafeBufferPointer(start: data, count: size), as: UTF8.self) else { return 0 }
    // Includes read other files (even /dev/zero); the parser's own logic is what is under test.
    if text.contains("include") { return 0 }
    let environment = ["HOME": "/nonexistent-home"]
    do {
        let document = try ConfigFileParser(environment: environment).parse(text: text, file: "fuzz.conf")
        _ = try ConfigurationLoader(environment: environment).interpret(document)
    } catch {
        _ = error.description
    }
    return 0
}
