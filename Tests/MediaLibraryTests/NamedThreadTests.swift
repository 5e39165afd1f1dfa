import Foundation
import Platform
import Synchronization
import Testing

@testable import MediaLibrary

@Suite("NamedThread")
struct NamedThreadTests {
    /// What the kernel calls a thread started with `name`, read on that thread.
    private func kernelName(_ name: String) -> String {
        let seen = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        NamedThread.start(name: name) {
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            seen.withLock { $0 = comm.trimmingCharacters(in: .newlines) }
            done.signal()
        }
        done.wait()
        return seen.withLock { $0 } ?? ""
    }

    @Test func theKernelShowsTheName() {
        #expect(kernelName("tonearm.inotify") == "tonearm.inotify")
    }

    @Test func aLongNameKeepsItsFirstFifteenBytes() {
        #expect(kernelName("tonearm.something.long") == "tonearm.somethi")
    }
}
