import CPulse
import Synchronization

/// The `pulse` output's mixer, as MPD's: the volume of the output's stream in the server
/// (its sink input), not the sink's. `scale_volume` scales the level both ways. While the
/// output is closed the level set last is kept and the stream opens with it; a change made in
/// the server's volume control (`pactl`, the desktop's mixer) reaches the listeners.
final class PulseMixer: HardwareMixer {
    private let scale: Double
    private struct State {
        var connection: PulseConnection?
        var channels = 2
        /// The level to open the stream with, in `PA_VOLUME_NORM` units; nil: the server's.
        var pending: pa_volume_t?
        var listeners: [@Sendable (Int) -> Void] = []
    }
    private let state = Mutex(State())

    /// A mixer with `scale_factor`.
    init(scale: Double) { self.scale = scale }

    /// The level a new stream starts at.
    var pendingVolume: pa_volume_t? { state.withLock { $0.pending } }

    /// The output opened (`connection`) or closed (nil).
    func attach(_ connection: PulseConnection?, channels: Int) {
        let listeners = state.withLock { state -> [@Sendable (Int) -> Void] in
            if connection == nil, let old = state.connection { state.pending = old.currentVolume }
            state.connection = connection
            state.channels = channels
            return state.listeners
        }
        guard let connection else { return }
        connection.setVolumeListener { [scale] level in
            let percent = Self.percent(level, scale: scale)
            for listener in listeners { listener(percent) }
        }
        let percent = Self.percent(connection.currentVolume, scale: scale)
        for listener in listeners { listener(percent) }
    }

    func volume() throws(OutputError) -> Int {
        let (connection, pending) = state.withLock { ($0.connection, $0.pending) }
        guard let level = connection?.currentVolume ?? pending else { throw OutputError("disconnected") }
        return Self.percent(level, scale: scale)
    }

    func setVolume(_ volume: Int) throws(OutputError) {
        // MPD's integer arithmetic, so that both servers give the stream the same level.
        let level = (pa_volume_t(min(max(volume, 0), 100)) * maximum(scale) + 50) / 100
        let (connection, channels) = state.withLock { state in
            state.pending = level
            return (state.connection, state.channels)
        }
        try connection?.setVolume(level, channels: channels)
    }

    func onChange(_ listener: @escaping @Sendable (Int) -> Void) {
        state.withLock { $0.listeners.append(listener) }
    }

    /// MPD's conversion: 100 × (level + 1) / the scaled maximum, whole percent.
    private static func percent(_ level: pa_volume_t, scale: Double) -> Int {
        Int((100 * (UInt64(level) + 1)) / UInt64(maximum(scale)))
    }

    /// `PA_VOLUME_NORM` scaled by `scale_volume`: the level of 100 %.
    private static func maximum(_ scale: Double) -> pa_volume_t {
        pa_volume_t(scale * Double(PulseConnection.normalVolume))
    }

    private func maximum(_ scale: Double) -> pa_volume_t { Self.maximum(scale) }
}
