import Foundation
import Logging
import MusicModel
import Synchronization
import Testing

@testable import MediaLibrary

/// When the end of an update job is told to the clients, against what `status` shows.
@Suite struct UpdateEventTests {
    /// MPD's main thread ends a job and raises `update` in one step. A client that no longer
    /// sees the job (`updating_db`) has been told already: one that starts to idle then is not
    /// woken by a stale `update`. Each job here is watched until its id is gone, and its end
    /// must have been reported by then (the event was raised after the job was cleared, and
    /// a poll in between saw neither).
    @Test("a job that status no longer shows has reported its end")
    func endReportedBeforeTheJobIsGone() throws {
        let root = NSTemporaryDirectory() + "tonearm-update-event-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let updates = Atomic<Int>(0)
        let library = try Library(
            settings: Library.Settings(
                musicDirectory: root, databasePath: root + "/db.sqlite", songSuffixes: ["flac"], tagMask: .all),
            logger: Logger(label: "test")
        ) { event in
            if case .update = event { updates.add(1, ordering: .sequentiallyConsistent) }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        for _ in 0..<200 {
            let before = updates.load(ordering: .sequentiallyConsistent)
            let job = try library.updates.enqueue("", rescan: false)
            while library.updates.runningJobID == job {
                try #require(ContinuousClock.now < deadline, "job \(job) did not end")
            }
            // A start and an end, both raised once the job is gone.
            #expect(updates.load(ordering: .sequentiallyConsistent) == before + 2)
        }
    }
}
