import Foundation
import Glibc
import Synchronization
import Testing

@testable import Playback

/// How the calling thread is scheduled and named.
struct ThreadFacts: Equatable, Sendable {
    /// `sched_getscheduler`'s answer: the policy, with `SCHED_RESET_ON_FORK` (0x40000000) set
    /// when the thread's children start with normal scheduling.
    var policy: Int32
    var priority: Int32
    /// The thread's niceness.
    var nice: Int32
    /// `/proc/thread-self/comm`.
    var name: String

    static let resetOnFork: Int32 = 0x4000_0000

    static func current() -> ThreadFacts {
        var parameters = sched_param()
        sched_getparam(0, &parameters)
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return ThreadFacts(
            policy: sched_getscheduler(0), priority: parameters.sched_priority,
            nice: getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0),
            name: name.trimmingCharacters(in: .newlines))
    }

    /// Whether this process may ask for `SCHED_FIFO` at MPD's priority (root with
    /// `CAP_SYS_NICE`, or an `RLIMIT_RTPRIO` that reaches it): asked of the kernel on a thread
    /// of its own, which ends right after.
    static var realtimeAllowed: Bool {
        final class Answer: @unchecked Sendable { var allowed = false }
        let answer = Answer()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var parameters = sched_param()
            parameters.sched_priority = AudioThreadScheduling.outputPriority
            answer.allowed = sched_setscheduler(0, SCHED_FIFO, &parameters) == 0
            done.signal()
        }
        thread.start()
        done.wait()
        return answer.allowed
    }
}

/// An output that notes how the thread that opens and writes it is scheduled.
final class SchedulingProbeDevice: AudioOutputDevice, @unchecked Sendable {
    let name = "probe"
    let plugin = "test"
    let atOpen = Mutex<ThreadFacts?>(nil)
    let atWrite = Mutex<ThreadFacts?>(nil)
    let bytes = Mutex(0)
    func open(format: PCMFormat) throws(OutputError) -> PCMFormat {
        atOpen.withLock { $0 = ThreadFacts.current() }
        return format
    }
    func write(_ data: UnsafeRawBufferPointer) throws(OutputError) -> Int {
        if atWrite.withLock({ $0 == nil }) { atWrite.withLock { $0 = ThreadFacts.current() } }
        bytes.withLock { $0 += data.count }
        return data.count
    }
    func drain() {}
    func cancel() {}
    func pause() -> Bool { true }
    func close() {}
}

/// The output threads run with real-time scheduling as MPD's do, the decoder five steps nicer
/// than the thread that made the pipeline (``AudioThreadScheduling``).
@Suite struct OutputSchedulingTests {
    @Test func outputThreadsPlayUnderSCHEDFIFOAndTheDecoderDoesNot() async {
        let creator = ThreadFacts.current()
        let device = SchedulingProbeDevice()
        // The decoder thread opens the song.
        let decoderFacts = Mutex<ThreadFacts?>(nil)
        let pipeline = DecodingPipeline(
            outputs: [.init(name: "probe", device: device, format: nil, softwareVolume: false)],
            bufferBytes: 64 * 1024,
            openSource: { _ in
                decoderFacts.withLock { $0 = ThreadFacts.current() }
                return CountingSource(first: 0, frames: 4000)
            })
        let recorder = EventRecorder()
        pipeline.setEventHandler { _, event in recorder.record(event) }
        defer { pipeline.shutDown() }
        _ = pipeline.play(
            PipelineTrack(token: 1, path: "/song/1", duration: nil, audioFormat: nil), from: 0, paused: false)
        pipeline.enqueue(nil)
        let events = await recorder.wait { $0.contains(.finished) }
        #expect(events.contains(.finished))
        // Every sample played, whether or not the thread got the priority.
        #expect(device.bytes.withLock { $0 } == 4000 * 2)

        let opened = device.atOpen.withLock { $0 }
        let wrote = device.atWrite.withLock { $0 }
        #expect(opened == wrote)
        #expect(wrote?.name == "tonearm.out.0")
        if ThreadFacts.realtimeAllowed {
            #expect(wrote?.policy == SCHED_FIFO | ThreadFacts.resetOnFork)
            #expect(wrote?.priority == 40)
        } else {
            // Refused: it plays on at normal priority, as MPD's output thread does.
            #expect(wrote?.policy == SCHED_OTHER)
        }
        let decoder = decoderFacts.withLock { $0 }
        #expect(decoder?.name == "tonearm.decoder")
        #expect(decoder?.policy == SCHED_OTHER)
        #expect(decoder?.nice == min(19, creator.nice + 5))
    }

    @Test func aRefusedRequestLeavesTheThreadAsItWas() {
        // A priority no process may have: the request fails and changes nothing.
        let facts = Mutex<(Int32, ThreadFacts)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let refusal = AudioThreadScheduling.makeCurrentThreadRealtime(priority: 1000)
            facts.withLock { $0 = (refusal, ThreadFacts.current()) }
            done.signal()
        }
        thread.start()
        done.wait()
        let (refusal, after) = facts.withLock { $0 }!
        #expect(refusal == EINVAL)
        #expect(after.policy == SCHED_OTHER)
    }
}
