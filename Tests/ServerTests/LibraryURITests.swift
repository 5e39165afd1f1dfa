import MPDProtocol
import Testing

@testable import Server

@Suite("Library URIs")
struct LibraryURITests {
    /// What `local` answers: the URI, nil (names nothing), or the ACK's code and message.
    private func located(_ uri: String) -> String {
        do throws(MPDError) {
            return try LibraryURI.local(uri, allowEmpty: false) ?? "nothing"
        } catch {
            return "\(error.code.rawValue) \(error.message)"
        }
    }

    @Test("relative URIs pass; absolute paths, file:// and other URLs are refused as by MPD")
    func refusals() {
        #expect(located("Artist/Album/01 Song.flac") == "Artist/Album/01 Song.flac")
        #expect(located("a:/b") == "a:/b")
        #expect(located("a::/b") == "a::/b")
        #expect(located("file:/x") == "file:/x")
        #expect(located("a//b") == "nothing")
        #expect(located("/etc/passwd") == "4 Access denied")
        #expect(located("file:///etc/passwd") == "4 Access denied")
        #expect(located("FiLe:///etc/passwd") == "4 Access denied")
        #expect(located("file://etc/passwd") == "2 Malformed file:// URI")
        #expect(located("file://") == "2 Malformed file:// URI")
        #expect(located("http://radio.example/stream") == "2 Unsupported URI scheme")
        #expect(located("dir/x:://y") == "2 Unsupported URI scheme")
        #expect(located("x:/:://y") == "2 Unsupported URI scheme")
    }
}
