import Foundation
import MediaLibrary
import MusicModel
import Synchronization
import Testing

/// Counts change notifications from any thread.
private final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// The stored playlist files: names, MPD's rules and their errors, modes, edits, atomic writes
/// and change notifications, on a private temporary directory.
final class StoredPlaylistsTests {
    let root = NSTemporaryDirectory() + "tonearm-playlists-\(UUID().uuidString)"
    private let changes = Counter()
    var directory: String { root + "/playlists" }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func store(maximumLength: Int = 16384, absolute: Bool = false) -> StoredPlaylists {
        StoredPlaylists(
            directory: directory, maximumLength: maximumLength, musicDirectory: "/srv/music",
            saveAbsolutePaths: absolute, onChange: { [changes] in changes.increment() })
    }

    func text(_ name: String) throws -> String {
        try String(contentsOfFile: directory + "/" + name + ".m3u", encoding: .utf8)
    }

    /// The library error `body` throws, or `nil` (any other error fails the test).
    func error(_ body: () async throws -> Void) async -> LibraryError? {
        do {
            try await body()
        } catch let error as LibraryError {
            return error
        } catch {
            Issue.record("not a library error: \(error)")
        }
        return nil
    }

    @Test func namesAreCheckedAsMPDDoes() async {
        #expect(StoredPlaylists.isValidName("My list"))
        #expect(StoredPlaylists.isValidName(".."))  // "...m3u" is an ordinary file name
        #expect(!StoredPlaylists.isValidName(""))
        #expect(!StoredPlaylists.isValidName("a/b"))
        #expect(!StoredPlaylists.isValidName("a\nb"))
        #expect(!StoredPlaylists.isValidName("a\rb"))
        let store = store()
        #expect(await error { try await store.save([], as: "a/b", mode: .create) } == .invalidPlaylistName("a/b"))
        #expect(await error { _ = try store.entries(of: "") } == .invalidPlaylistName(""))
    }

    @Test func aMissingDirectoryHasNoPlaylistsAndIsMadeOnFirstSave() async throws {
        let store = store()
        #expect(try store.list() == [])
        #expect(try store.entries(of: "x") == nil)
        try await store.save(["a.flac", "b/c.mp3"], as: "x", mode: .create)
        #expect(try text("x") == "a.flac\nb/c.mp3\n")
        #expect(try store.list().map(\.name) == ["x"])
        #expect(changes.value == 1)
    }

    @Test func saveModes() async throws {
        let store = store(maximumLength: 3)
        try await store.save(["a"], as: "x", mode: .create)
        #expect(await error { try await store.save(["b"], as: "x", mode: .create) } == .playlistExists("x"))
        #expect(await error { try await store.save(["b"], as: "y", mode: .append) } == .noSuchPlaylist("y"))
        #expect(await error { try await store.save(["b"], as: "y", mode: .replace) } == .noSuchPlaylist("y"))
        try await store.save(["b", "c"], as: "x", mode: .append)
        #expect(try store.entries(of: "x") == ["a", "b", "c"])
        #expect(await error { try await store.save(["d"], as: "x", mode: .append) } == .playlistTooLarge)
        try await store.save(["d"], as: "x", mode: .replace)
        #expect(try store.entries(of: "x") == ["d"])
        #expect(changes.value == 3)
    }

    @Test func listingSortsAndSkipsWhatIsNotAPlaylist() async throws {
        let store = store()
        try await store.save([], as: "b", mode: .create)
        try await store.save([], as: "A", mode: .create)
        try FileManager.default.createDirectory(atPath: directory + "/dir.m3u", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: directory + "/.m3u", contents: Data())
        _ = FileManager.default.createFile(atPath: directory + "/notes.txt", contents: Data())
        _ = FileManager.default.createFile(atPath: directory + "/c.m3u8", contents: Data())
        #expect(try store.list().map(\.name) == ["A", "b"])
        #expect(try store.list().allSatisfy { $0.lastModified > 1_600_000_000 })
    }

    @Test func editsApplyMPDsRules() async throws {
        let store = store(maximumLength: 4)
        #expect(
            await error { try await store.edit("x", createIfMissing: false) { _ throws(LibraryError) in true } }
                == .noSuchPlaylist("x"))
        try await store.edit("x", createIfMissing: true) { entries throws(LibraryError) in
            try StoredPlaylists.insert(["a", "b", "c"], at: 0, into: &entries, maximumLength: 4)
            return true
        }
        var entries = try #require(try store.entries(of: "x"))
        #expect(
            await error { try StoredPlaylists.insert(["z"], at: 4, into: &entries, maximumLength: 4) }
                == .positionPastEnd(4))
        #expect(
            await error { try StoredPlaylists.insert(["y", "z"], at: 1, into: &entries, maximumLength: 4) }
                == .playlistTooLarge)
        try StoredPlaylists.insert(["z"], at: 1, into: &entries, maximumLength: 4)
        #expect(entries == ["a", "z", "b", "c"])
        try StoredPlaylists.move(1..<2, to: 3, in: &entries)
        #expect(entries == ["a", "b", "c", "z"])
        try StoredPlaylists.move(2..<4, to: 0, in: &entries)
        #expect(entries == ["c", "z", "a", "b"])
        #expect(await error { try StoredPlaylists.move(0..<1, to: 4, in: &entries) } == .rangeOutOfBounds)
        #expect(await error { try StoredPlaylists.move(3..<5, to: 0, in: &entries) } == .rangeOutOfBounds)
        // A start at the end deletes nothing; only one past it is an error (RangeArg::CheckClip).
        try StoredPlaylists.remove(RangeArgument(start: 4, end: 5), from: &entries)
        #expect(
            await error { try StoredPlaylists.remove(RangeArgument(start: 5, end: 6), from: &entries) }
                == .rangeStartPastEnd(5))
        try StoredPlaylists.remove(RangeArgument(start: 1, end: 3), from: &entries)
        #expect(entries == ["c", "b"])
        try StoredPlaylists.remove(.all, from: &entries)
        #expect(entries.isEmpty)
        // An edit that says there is nothing to write leaves the file and raises no change.
        let before = changes.value
        #expect(try await !store.edit("x", createIfMissing: false) { _ throws(LibraryError) in false })
        #expect(changes.value == before)
    }

    @Test func clearRenameDelete() async throws {
        let store = store()
        try await store.save(["a"], as: "x", mode: .create)
        try await store.save(["b"], as: "y", mode: .create)
        try await store.clear("x")
        #expect(try text("x") == "")
        #expect(await error { try await store.clear("nope") } == .noSuchPlaylist("nope"))
        #expect(await error { try await store.rename("x", to: "y") } == .renameTargetExists("y"))
        #expect(await error { try await store.rename("nope", to: "y") } == .renameTargetExists("y"))
        #expect(await error { try await store.rename("nope", to: "z") } == .noSuchPlaylist("nope"))
        #expect(await error { try await store.rename("x", to: "a/b") } == .invalidPlaylistName("a/b"))
        try await store.rename("x", to: "z")
        #expect(try store.list().map(\.name) == ["y", "z"])
        try await store.delete("z")
        #expect(await error { try await store.delete("z") } == .noSuchPlaylist("z"))
        #expect(try store.list().map(\.name) == ["y"])
    }

    @Test func writesLeaveNoTemporaryFiles() async throws {
        let store = store()
        for round in 0..<5 { try await store.save(["\(round).flac"], as: "x", mode: round == 0 ? .create : .replace) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["x.m3u"])
    }

    @Test func absolutePathsBelowTheMusicDirectoryReadAsURIs() async throws {
        let absolute = store(absolute: true)
        try await absolute.save(["a.flac", "/elsewhere/b.flac", "http://example.com/s"], as: "x", mode: .create)
        #expect(try text("x") == "/srv/music/a.flac\n/elsewhere/b.flac\nhttp://example.com/s\n")
        // Edits read them back as library URIs, so a relative store writes them relative.
        let relative = store()
        try await relative.edit("x", createIfMissing: false) { _ throws(LibraryError) in true }
        #expect(try text("x") == "a.flac\n/elsewhere/b.flac\nhttp://example.com/s\n")
    }
}
