import NIOCore
import NIOPosix
import Synchronization
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

/// How many reads a channel's handler has seen.
private final class ReadCount: Sendable {
    let value = Atomic<Int>(0)
}

/// Counts the reads of the channel it is in.
private final class CountingHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let count: ReadCount

    init(_ count: ReadCount) {
        self.count = count
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        count.value.add(1, ordering: .relaxed)
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

    @Test func yieldingLetsTheLoopReadItsOtherSockets() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let clients = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let reads = ReadCount()
        let accepted = ReadCount()
        let server = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(CountingHandler(reads))
                    accepted.value.add(1, ordering: .relaxed)
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let client = try await ClientBootstrap(group: clients).connect(to: server.localAddress!).get()
        while accepted.value.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(1)) }

        // A session busy with a long answer on the loop, stepping aside between pages, while
        // another connection of the same loop sends a request.
        let stepsBeforeTheRead = await withTaskGroup(of: Int?.self) { tasks in
            tasks.addTask(executorPreference: EventLoopTaskExecutor(loop)) {
                client.writeAndFlush(ByteBuffer(string: "ping\n"), promise: nil)
                for step in 0..<2000 {
                    if reads.value.load(ordering: .relaxed) > 0 { return step }
                    let pageDone = ContinuousClock.now + .microseconds(50)
                    while ContinuousClock.now < pageDone {}
                    await EventLoopTaskExecutor.yieldToOtherSessions()
                }
                return nil
            }
            return await tasks.next() ?? nil
        }
        try await client.close()
        try await server.close()
        try await clients.shutdownGracefully()
        try await group.shutdownGracefully()
        // With `Task.yield()` the loop read nothing until the task had finished all its steps.
        #expect(stepsBeforeTheRead != nil)
    }
}
