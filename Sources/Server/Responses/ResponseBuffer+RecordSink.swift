import MPDProtocol
import MediaLibrary

/// The library's printing queries write their fields straight into a response: `key: value`
/// lines, as MPD prints them.
extension ResponseBuffer: RecordSink {}
