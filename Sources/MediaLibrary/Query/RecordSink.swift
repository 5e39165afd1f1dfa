/// Where the library's printing queries put what they read: fields written straight from
/// SQLite's rows, with no ``Song`` or string built on the way (half the time of a 30 MB
/// `listallinfo`). The server's response buffer is one.
///
/// The library calls it for every row, so the queries take the sink as a generic parameter
/// rather than as an existential.
package protocol RecordSink {
    /// How many bytes the sink holds: a page of a walk ends once it holds enough.
    var count: Int { get }

    /// Adds a field: its name, and its value as UTF-8 bytes that are valid only during the call.
    mutating func append(_ key: String, bytes value: UnsafeRawBufferPointer)
}
