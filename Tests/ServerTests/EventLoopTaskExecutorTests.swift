import NIOCore
import NIOPosix
import Testing

@testable import Server

/// A default actor, which has no executor of its own.
private actor Counter {
    private var count = 0
    func increment(_ loop: any EventLoop) -> Bool {
        count += 1
        return loop.inEventLoop
    }
}

@Suite("EventLoopTaskExecutor")
struct EventLoopTaskExecutorTests {
    @Test func aTaskPreferringTheExecutorRunsOnItsLoopAcrossSuspensions() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let loop = group.next()
        let other = group.next()
        let counter = Counter()
        let steps = await withTaskGroup(of: [Bool].self) { tasks in
            tasks.addTask(executorPreference: EventLoopTaskExecutor(loop)) {
                var steps = [loop.inEventLoop]
                await Task.yield()
                steps.append(loop.inEventLoop)
                // A default actor runs on the task's preferred executor (SE-0417): calling one
                // from a session costs no thread switch …
                steps.append(await counter.increment(loop))
                // … and the task is still on its loop after it.
                steps.append(loop.inEventLoop)
                // A future completed on another loop resumes the task on its own loop.
                _ = try? await other.submit { 1 }.get()
                steps.append(loop.inEventLoop && !other.inEventLoop)
                return steps
            }
            return await tasks.next() ?? []
        }
        try await group.shutdownGracefully()
        #expect(steps == [true, true, true, true, true])
    }
}
