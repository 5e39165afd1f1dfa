#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// PCRE2's verdict on a `=~` pattern, for the error a bad one answers.
///
/// MPD compiles filter regular expressions with PCRE2 and answers a bad one with PCRE2's
/// offset and message. Tonearm matches with ICU
/// (`NSRegularExpression`), whose errors carry neither an offset nor a message, so it asks PCRE2
/// first when the library is there. libpcre2-8 is opened at run time instead of linked: every
/// Debian-based system has it (grep depends on it), and without it only the message is lost
/// (the caller falls back to a generic one).
enum PCRE2Syntax {
    /// The error PCRE2 finds compiling `pattern` the way MPD does, or `nil` when it compiles
    /// or libpcre2 is not available.
    static func error(in pattern: String, caseless: Bool) -> RegexSyntaxError? {
        guard let library = Library.shared else { return nil }
        // MPD's UniqueRegex options: dot matches newline, no numbered captures.
        var options: UInt32 = dotAll | noAutoCapture
        if caseless { options |= self.caseless }
        var code: Int32 = 0
        var offset = 0
        let compiled = pattern.withCString { library.compile($0, zeroTerminated, options, &code, &offset, nil) }
        if let compiled {
            library.free(compiled)
            return nil
        }
        var buffer = [CChar](repeating: 0, count: 256)
        guard library.message(code, &buffer, buffer.count) > 0 else { return nil }
        let message = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return RegexSyntaxError(offset: offset, message: message)
    }

    // pcre2.h's values, which do not change between PCRE2 releases (they are ABI).
    private static let caseless: UInt32 = 0x0000_0008
    private static let dotAll: UInt32 = 0x0000_0020
    private static let noAutoCapture: UInt32 = 0x0000_2000
    /// `PCRE2_ZERO_TERMINATED`: `~(PCRE2_SIZE)0`.
    private static let zeroTerminated = -1

    /// The three functions of libpcre2-8 this needs, looked up once.
    private struct Library: Sendable {
        /// `pcre2_compile_8(pattern, length, options, &errorcode, &erroroffset, context)`.
        typealias Compile =
            @convention(c) (
                UnsafePointer<CChar>?, Int, UInt32, UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int>?,
                OpaquePointer?
            ) -> OpaquePointer?
        /// `pcre2_code_free_8(code)`.
        typealias Free = @convention(c) (OpaquePointer?) -> Void
        /// `pcre2_get_error_message_8(errorcode, buffer, length)`.
        typealias Message = @convention(c) (Int32, UnsafeMutablePointer<CChar>?, Int) -> Int32

        let compile: Compile
        let free: Free
        let message: Message

        /// The library, or `nil` when it cannot be loaded.
        static let shared: Library? = {
            guard let handle = dlopen("libpcre2-8.so.0", RTLD_NOW | RTLD_LOCAL),
                let compile = dlsym(handle, "pcre2_compile_8"),
                let free = dlsym(handle, "pcre2_code_free_8"),
                let message = dlsym(handle, "pcre2_get_error_message_8")
            else { return nil }
            // Loaded for the life of the process: never closed.
            return Library(
                compile: unsafeBitCast(compile, to: Compile.self),
                free: unsafeBitCast(free, to: Free.self),
                message: unsafeBitCast(message, to: Message.self)
            )
        }()
    }
}
