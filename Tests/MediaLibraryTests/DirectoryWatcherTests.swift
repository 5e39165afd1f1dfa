import Foundation
import Logging
import Synchronization
import Testing

@testable import MediaLibrary

/// A temporary directory tree, removed when the test ends.
private final class TemporaryTree {
    let root: String

    init() throws {
        root = NSTemporaryDirectory() + "tonearm-watch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    func path(_ uri: String) -> String { root + "/" + uri }

    func makeDirectory(_ uri: String) throws {
        try FileManager.default.createDirectory(atPath: path(uri), withIntermediateDirectories: true)
    }

    /// Writes a file (open, write, close: one `IN_CLOSE_WRITE`).
    func write(_ uri: String) throws {
        try Data("x".utf8).write(to: URL(fileURLWithPath: path(uri)))
    }

    func remove(_ uri: String) throws { try FileManager.default.removeItem(atPath: path(uri)) }

    func move(_ from: String, _ to: String) throws {
        guard rename(path(from), path(to)) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
}

/// Collects what a watcher reports, and waits (polling, with a generous limit) for what a test
/// expects: a test never asserts how long anything takes.
private final class Recorder: Sendable {
    private let events = Mutex<[DirectoryWatcher.Event]>([])

    func record(_ event: DirectoryWatcher.Event) { events.withLock { $0.append(event) } }

    var changes: [String] {
        events.withLock { $0.compactMap { if case .changed(let uri) = $0 { uri } else { nil } } }
    }

    /// Waits until `predicate` holds for the events so far; false when it never did.
    func wait(_ predicate: @Sendable ([DirectoryWatcher.Event]) -> Bool) async -> Bool {
        for _ in 0..<1000 {
            if events.withLock({ predicate($0) }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    func waitForChange(_ uri: String) async -> Bool { await wait { $0.contains(.changed(uri)) } }

    func waitUntilWatching() async -> Bool {
        await wait { $0.contains { if case .watching = $0 { true } else { false } } }
    }
}

/// A logger that keeps the test output to warnings.
private var quietLogger: Logger {
    var logger = Logger(label: "test")
    logger.logLevel = .warning
    return logger
}

private func startWatcher(
    _ tree: TemporaryTree,
    maxDepth: Int? = nil,
    followOutsideSymlinks: Bool = true
) async throws -> (DirectoryWatcher, Recorder) {
    let recorder = Recorder()
    let watcher = try DirectoryWatcher(
        root: tree.root, maxDepth: maxDepth, followOutsideSymlinks: followOutsideSymlinks,
        logger: quietLogger
    ) { recorder.record($0) }
    #expect(await recorder.waitUntilWatching())
    return (watcher, recorder)
}

@Suite("DirectoryWatcher (real inotify on a temporary directory)")
struct DirectoryWatcherTests {
    @Test func watchesEveryDirectoryAtStart() async throws {
        let tree = try TemporaryTree()
        try tree.makeDirectory("a/b/c")
        try tree.makeDirectory("d")
        try tree.write("a/file.flac")
        let (watcher, _) = try await startWatcher(tree)
        #expect(watcher.watchedDirectories == ["", "a", "a/b", "a/b/c", "d"])
        await watcher.stop()
        #expect(watcher.watchedDirectories.isEmpty)
    }

    @Test(arguments: [(0, [""]), (1, ["", "a", "d"]), (2, ["", "a", "a/b", "d"])])
    func respectsTheDepthLimit(depth: Int, watched: [String]) async throws {
        let tree = try TemporaryTree()
        try tree.makeDirectory("a/b/c")
        try tree.makeDirectory("d")
        let (watcher, _) = try await startWatcher(tree, maxDepth: depth)
        #expect(watcher.watchedDirectories == watched)
        await watcher.stop()
    }

    @Test func changesBelowTheDepthLimitAreNotReported() async throws {
        let tree = try TemporaryTree()
        try tree.makeDirectory("a/b")
        let (watcher, recorder) = try await startWatcher(tree, maxDepth: 1)
        try tree.write("a/b/deep.flac")
        try tree.write("a/shallow.flac")
        // One inotify queue keeps the order: once the later change is in, an earlier one would be.
        #expect(await recorder.waitForChange("a"))
        #expect(!recorder.changes.contains("a/b"))
        await watcher.stop()
    }

    @Test func reportsWrittenDeletedAndMovedFiles() async throws {
        let tree = try TemporaryTree()
        try tree.makeDirectory("a")
        try tree.makeDirectory("b")
        let (watcher, recorder) = try await startWatcher(tree)
        try tree.write("a/new.flac")
        #expect(await recorder.waitForChange("a"))
        try tree.move("a/new.flac", "b/moved.flac")
        #expect(await recorder.waitForChange("b"))
        #expect(recorder.changes.filter { $0 == "a" }.count >= 2)
        try tree.remove("b/moved.flac")
        #expect(await recorder.wait { $0.filter { $0 == .changed("b") }.count >= 2 })
        try tree.write("root.flac")
        #expect(await recorder.waitForChange(""))
        await watcher.stop()
    }

    @Test func watchesNewDirectoriesAndForgetsRemovedOnes() async throws {
        let tree = try TemporaryTree()
        try tree.makeDirectory("a")
        let (watcher, recorder) = try await startWatcher(tree)
        try tree.makeDirectory("a/new/deeper")
        #expect(await recorder.waitForChange("a/new"))
        #expect(await recorder.wait { _ in watcher.watchedDirectories == ["", "a", "a/new", "a/new/deeper"] })
        try tree.write("a/new/deeper/song.flac")
        #expect(await recorder.waitForChange("a/new/deeper"))
        try tree.remove("a/new")
        #expect(await recorder.wait { _ in watcher.watchedDirectories == ["", "a"] })
        await watcher.stop()
    }

    @Test func followsRenamedDirectories() async throws {
        let tree = try TemporaryTree()
        try tree.makeDirectory("a/album")
        try tree.makeDirectory("b")
        let (watcher, recorder) = try await startWatcher(tree)
        try tree.move("a/album", "b/album")
        #expect(await recorder.wait { _ in watcher.watchedDirectories == ["", "a", "b", "b/album"] })
        try tree.write("b/album/song.flac")
        #expect(await recorder.waitForChange("b/album"))
        await watcher.stop()
    }

    @Test(arguments: [true, false])
    func followsLinksToOutsideDirectoriesByTheScannersRules(follow: Bool) async throws {
        let tree = try TemporaryTree()
        let outside = try TemporaryTree()
        try outside.makeDirectory("album")
        try tree.makeDirectory("a")
        try FileManager.default.createSymbolicLink(
            atPath: tree.path("a/link"), withDestinationPath: outside.path("album"))
        let (watcher, _) = try await startWatcher(tree, followOutsideSymlinks: follow)
        #expect(watcher.watchedDirectories == (follow ? ["", "a", "a/link"] : ["", "a"]))
        await watcher.stop()
    }

    @Test func failsWhenTheDirectoryIsMissing() {
        #expect(throws: DirectoryWatcher.Failure.self) {
            _ = try DirectoryWatcher(root: "/nonexistent/tonearm-\(UUID().uuidString)", logger: quietLogger) { _ in }
        }
    }
}

@Suite("ChangeQueue merging (MPD's InotifyQueue rules)")
struct ChangeQueueTests {
    @Test func aURIInsideAPendingOneIsDropped() {
        #expect(ChangeQueue.merging("a/b", into: ["a"]) == ["a"])
        #expect(ChangeQueue.merging("a", into: ["a"]) == ["a"])
        #expect(ChangeQueue.merging("x", into: [""]) == [""])
        #expect(ChangeQueue.merging("ab", into: ["a"]) == ["a", "ab"])
    }

    @Test func pendingURIsInsideANewOneGiveWay() {
        #expect(ChangeQueue.merging("a", into: ["a/b", "c", "a/d/e"]) == ["c", "a"])
        #expect(ChangeQueue.merging("", into: ["a", "b"]) == [""])
    }

    @Test func tooManyURIsBecomeTheirCommonDirectory() {
        #expect(ChangeQueue.collapsed(["a/b", "a/c"], limit: 2) == ["a/b", "a/c"])
        #expect(ChangeQueue.collapsed(["a/b/1", "a/b/2", "a/c"], limit: 2) == ["a"])
        #expect(ChangeQueue.collapsed(["a/b", "c/d", "a/e"], limit: 2) == [""])
    }
}
