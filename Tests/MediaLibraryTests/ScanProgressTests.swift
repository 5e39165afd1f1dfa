import Foundation
import Logging
import MusicModel
import Testing

@testable import MediaLibrary

@Suite("Update job progress and summary lines")
struct ScanProgressTests {
    @Test("numbers are grouped by thousands whatever the locale")
    func grouping() {
        #expect(ScanProgress.grouped(0) == "0")
        #expect(ScanProgress.grouped(999) == "999")
        #expect(ScanProgress.grouped(1000) == "1,000")
        #expect(ScanProgress.grouped(100_000) == "100,000")
        #expect(ScanProgress.grouped(1_234_567) == "1,234,567")
        #expect(ScanProgress.grouped(-4210) == "-4,210")
        #expect(ScanProgress.counted(1, "folder") == "1 folder")
        #expect(ScanProgress.counted(0, "folder") == "0 folders")
        #expect(ScanProgress.counted(4210, "folder") == "4,210 folders")
    }

    @Test("the summary has the counts, the first unreadable files and the rate")
    func summary() {
        var progress = ScanProgress(job: 3, uri: "", interval: .seconds(5))
        progress.folders = 4210
        progress.files = 100_000
        progress.walked = true
        progress.checked = 100_000
        progress.added = 99_998
        progress.fail("a/b.flac", reason: "Invalid data found when processing input")
        progress.fail("c.mp3", reason: "End of file")
        #expect(
            progress.summary(elapsed: .milliseconds(31_200))
                == "update job 3: 100,000 files in 4,210 folders, 99,998 added, 0 updated, 0 removed, "
                + "2 unreadable (a/b.flac: Invalid data found when processing input, c.mp3: End of file) "
                + "in 31.2 s (3,205 files/s)")
    }

    @Test("a job that changed nothing still has its summary, naming the part of the library")
    func emptySummary() {
        let progress = ScanProgress(job: 7, uri: "Artist/Album", interval: .seconds(5))
        #expect(
            progress.summary(elapsed: .zero)
                == "update job 7 (\"Artist/Album\"): 0 files in 0 folders, 0 added, 0 updated, 0 removed, "
                + "0 unreadable in 0.0 s (0 files/s)")
    }

    @Test("only the first few unreadable files are named, the others counted")
    func failuresNamed() {
        var progress = ScanProgress(job: 1, uri: "", interval: .seconds(5))
        for index in 0..<10 { progress.fail("\(index).flac", reason: "corrupt") }
        #expect(progress.failed == 10)
        #expect(progress.failures.map(\.uri) == ["0.flac", "1.flac", "2.flac"])
        #expect(
            progress.summary(elapsed: .seconds(1)).contains(
                "10 unreadable (0.flac: corrupt, 1.flac: corrupt, 2.flac: corrupt, …)"))
    }

    @Test("progress while walking says what was found, then how far the check got")
    func progressText() {
        var progress = ScanProgress(job: 2, uri: "", interval: .seconds(5))
        progress.folders = 1730
        progress.files = 41_200
        #expect(
            progress.progress(elapsed: .seconds(4))
                == "update job 2: 41,200 files in 1,730 folders found so far, 4.0 s")
        progress.walked = true
        progress.files = 100_000
        progress.folders = 4210
        progress.checked = 52_000
        progress.added = 51_999
        progress.updated = 1
        progress.fail("x.flac", reason: "corrupt")
        #expect(
            progress.progress(elapsed: .seconds(16))
                == "update job 2: 52,000 of 100,000 files checked in 4,210 folders, 51,999 added, 1 updated, "
                + "0 removed, 1 unreadable, 16.0 s (3,250 files/s)")
    }

    @Test("a progress line is due once per interval, counted from the last one")
    func interval() {
        let start = ContinuousClock.now
        var progress = ScanProgress(job: 1, uri: "", interval: .seconds(5), started: start)
        #expect(progress.progressLine(at: start + .seconds(1)) == nil)
        #expect(progress.progressLine(at: start + .seconds(5)) != nil)
        #expect(progress.progressLine(at: start + .seconds(9)) == nil)
        #expect(progress.progressLine(at: start + .seconds(10)) != nil)
        var always = ScanProgress(job: 1, uri: "", interval: .zero, started: start)
        #expect(always.progressLine(at: start) != nil)
        #expect(always.progressLine(at: start) != nil)
    }

    @Test("a scan counts folders, files and unreadable files")
    func scannerCounts() throws {
        let root = NSTemporaryDirectory() + "tonearm-progress-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root + "/b/c", withIntermediateDirectories: true)
        for name in ["a.mp3", "b/x.flac", "b/c/y.flac"] {
            try Data("not a song".utf8).write(to: URL(fileURLWithPath: root + "/" + name))
        }
        try Data("#EXTM3U\n".utf8).write(to: URL(fileURLWithPath: root + "/list.m3u"))
        try Data("ignored".utf8).write(to: URL(fileURLWithPath: root + "/notes.txt"))
        var settings = Library.Settings(
            musicDirectory: root, databasePath: root + "/db.sqlite", songSuffixes: ["mp3", "flac"], tagMask: .all)
        settings.scanProgressInterval = .zero
        let library = try Library(settings: settings, logger: Logger(label: "test"), onEvent: { _ in })
        let scanner = MusicFolderScanner(
            store: library.store, walker: library.walker, tagMask: .all, logger: Logger(label: "test"), batchSize: 2)
        var progress = ScanProgress(job: 1, uri: "", interval: .zero)
        _ = try scanner.update("", rescan: false, now: 1, progress: &progress)
        #expect(progress.folders == 3)
        #expect(progress.files == 4)
        #expect(progress.checked == 4)
        #expect(progress.added == 0)
        #expect(progress.failed == 3)
        #expect(Set(progress.failures.map(\.uri)) == ["a.mp3", "b/x.flac", "b/c/y.flac"])
        // The URI names the file: the reason does not repeat its absolute path.
        #expect(progress.failures.allSatisfy { !$0.reason.contains(root) })
    }
}
