import Platform

/// Delivers the pipeline's events to the player on a thread of its own (`tonearm.events`):
/// the audio threads post into a ``PipelineMailbox``, which never blocks them nor allocates,
/// and this thread turns each post into a ``PipelineEvent`` and calls the handler, outside
/// every lock of the pipeline.
final class PipelineEventDispatcher: Sendable {
    /// Where the audio threads post.
    let mailbox = PipelineMailbox()
    private let handler = Locked<(@Sendable (UInt64, PipelineEvent) -> Void)?>(nil)
    private let nowPlaying: Locked<NowPlaying>
    private let log: (@Sendable (PipelineLogEntry) -> Void)?

    /// Creates the dispatcher; `nowPlaying` turns track tokens into tracks, `log` receives
    /// the failures' full reasons and the outputs' opening (the server's log).
    init(nowPlaying: Locked<NowPlaying>, log: (@Sendable (PipelineLogEntry) -> Void)?) {
        self.nowPlaying = nowPlaying
        self.log = log
    }

    /// Starts the thread.
    func start() {
        NamedThread.start(name: "tonearm.events", stackSize: 1 << 20) { [self] in run() }
    }

    /// Sets where events go.
    func setHandler(_ handler: @escaping @Sendable (UInt64, PipelineEvent) -> Void) {
        self.handler.withLock { $0 = handler }
    }

    /// Posts an event of `generation`; never blocks.
    func post(_ kind: PipelineMailbox.Kind, generation: UInt64) {
        mailbox.post(kind, generation: generation)
    }

    /// Ends the thread once the events posted before are delivered.
    func shutDown() { mailbox.post(.shutdown, generation: 0) }

    private func run() {
        while true {
            let (generation, kind) = mailbox.take()
            let event: PipelineEvent?
            switch kind {
            case .shutdown:
                return
            case .log(let entry):
                log?(entry)
                continue
            case .started(let token):
                event = nowPlaying.withLock { nowPlaying in
                    let track = nowPlaying.track(token)
                    nowPlaying.forgetTracks(before: token)
                    return track.map(PipelineEvent.started)
                }
            case .borderPause: event = .borderPause
            case .finished: event = .finished
            case .failed(let message): event = .failed(message)
            case .outputsFailed(let message): event = .outputsFailed(message)
            case .streamReached(let serial):
                event = nowPlaying.withLock { $0.takeDescription(serial) }.map {
                    .streamDescribed(token: $0.token, $0.description)
                }
            }
            if let event, let handler = handler.value { handler(generation, event) }
        }
    }
}
