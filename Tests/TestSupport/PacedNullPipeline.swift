import Dispatch
import Foundation
package import Playback
package import Settings
import Synchronization

/// A test double for a partition's pipeline: it plays into nothing at real-time speed (elapsed
/// time advances with the clock and a track ends after its duration) and has no outputs, so a
/// server runs in a test without opening a device.
package final class PacedNullPipeline: OutputPipeline {
    private struct State {
        var generation: UInt64 = 0
        var track: PipelineTrack?
        var next: PipelineTrack?
        var paused = false
        var borderPause = false
        /// The position in the track at `since`.
        var offset = 0.0
        var since = ContinuousClock.now
        var played = 0.0
        var timer: (any DispatchSourceTimer)?
        var handler: (@Sendable (UInt64, PipelineEvent) -> Void)?

        func elapsed(at now: ContinuousClock.Instant) -> Double {
            guard track != nil else { return 0 }
            return paused ? offset : offset + (now - since).seconds
        }
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "tonearm.pipeline.null")
    /// Whether the player may change the volume, as a real pipeline with a mixer would let it.
    package let hasMixer: Bool

    /// Creates an idle pipeline.
    /// - Parameter hasMixer: whether volume can be changed (an output with a mixer).
    package init(hasMixer: Bool = false) {
        self.hasMixer = hasMixer
    }

    /// Where events go; they are delivered on the pipeline's own queue.
    package func setEventHandler(_ handler: @escaping @Sendable (UInt64, PipelineEvent) -> Void) {
        state.withLock { $0.handler = handler }
    }

    /// Starts `track` by the clock, or fails at once, as the decoder would, when its file cannot be read.
    package func play(_ track: PipelineTrack, from offset: Double, paused: Bool) -> UInt64 {
        let readable = FileManager.default.isReadableFile(atPath: track.path)
        return state.withLock { state in
            settle(&state)
            state.generation += 1
            state.next = nil
            if !readable {
                state.track = nil
                state.timer?.cancel()
                post(state, .failed("Failed to decode \(track.path)"))
                return state.generation
            }
            state.track = track
            state.offset = offset
            state.since = .now
            state.paused = paused
            schedule(&state)
            return state.generation
        }
    }

    /// Sets the track that takes over when the current one ends.
    package func enqueue(_ track: PipelineTrack?) {
        state.withLock { $0.next = track }
    }

    /// Stops or restarts the clock.
    package func setPaused(_ paused: Bool) {
        state.withLock { state in
            guard state.track != nil, state.paused != paused else { return }
            settle(&state)
            state.paused = paused
            schedule(&state)
        }
    }

    /// Whether to pause when the queued track takes over (single mode).
    package func setBorderPause(_ enabled: Bool) {
        state.withLock { $0.borderPause = enabled }
    }

    /// Forgets both tracks and stops the clock.
    package func stop() {
        state.withLock { state in
            settle(&state)
            state.generation += 1
            state.track = nil
            state.next = nil
            state.timer?.cancel()
            state.timer = nil
        }
    }

    /// Nothing is heard, so there is nothing to scale.
    package func setVolume(_ level: Int) {}

    /// Nothing to scale: no samples pass through here.
    package func setReplayGainMode(_ mode: ReplayGainMode) {}

    /// Nothing to mix: songs end and start by the clock.
    package func setCrossfade(_ settings: CrossfadeSettings) {}

    /// What plays and where the clock stands.
    package var status: PipelineStatus {
        state.withLock { state in
            guard let track = state.track else { return PipelineStatus(state: .stop) }
            return PipelineStatus(state: state.paused ? .pause : .play, elapsed: state.elapsed(at: .now), track: track)
        }
    }

    /// The seconds the clock ran while playing.
    package var playedSeconds: Double {
        state.withLock { state in
            state.played + (state.track != nil && !state.paused ? (ContinuousClock.now - state.since).seconds : 0)
        }
    }

    // MARK: Outputs: there are none.

    /// No output to list.
    package var outputStatuses: [OutputStatus] { [] }

    /// No output to switch.
    package func setOutput(_ id: Int, enabled: Bool) -> Bool? { nil }

    /// No output to set an attribute of.
    package func setAttribute(output id: Int, name: String, value: String) throws(OutputAttributeError) {
        throw .noSuchOutput
    }

    /// No output to hold.
    package func holdsOutput(_ index: Int) -> Bool { false }

    /// No output to let go.
    package func detachOutput(_ index: Int) -> Bool? { nil }

    /// No output to take in.
    package func attachOutput(_ index: Int, enabled: Bool) {}

    /// Stops playing; there are no threads to end, only the timer.
    package func shutDown() { stop() }

    /// Folds the time played since `since` into `offset` and `played`.
    private func settle(_ state: inout State) {
        let now = ContinuousClock.now
        if state.track != nil && !state.paused {
            let delta = (now - state.since).seconds
            state.offset += delta
            state.played += delta
        }
        state.since = now
    }

    /// Arms the timer for the end of the current track (none while paused or for a track of
    /// unknown length).
    private func schedule(_ state: inout State) {
        state.timer?.cancel()
        state.timer = nil
        guard let track = state.track, !state.paused, let end = track.end ?? track.duration else { return }
        let remaining = max(0, end - state.elapsed(at: .now))
        let generation = state.generation
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + remaining, leeway: .milliseconds(1))
        timer.setEventHandler { [weak self] in self?.trackEnded(generation: generation) }
        state.timer = timer
        timer.resume()
    }

    private func trackEnded(generation: UInt64) {
        state.withLock { state in
            guard state.generation == generation, state.track != nil else { return }
            settle(&state)
            guard let next = state.next else {
                state.track = nil
                state.timer = nil
                post(state, .finished)
                return
            }
            state.track = next
            state.next = nil
            state.offset = next.start
            state.paused = state.borderPause
            post(state, .started(next))
            if state.paused { post(state, .borderPause) }
            schedule(&state)
        }
    }

    /// Delivers an event on the pipeline's queue, after the lock is released.
    private func post(_ state: State, _ event: PipelineEvent) {
        guard let handler = state.handler else { return }
        let generation = state.generation
        queue.async { handler(generation, event) }
    }
}

extension Duration {
    /// The duration in seconds as a floating-point number.
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
