/// What random mode shuffles (the Media Player framework's `MPMusicShuffleMode`, beside off):
/// single songs, as MPD does, or whole albums — the albums in random order, each album's songs
/// together in disc and track order (`shuffle_mode`, the `shufflemode` command).
package enum ShuffleMode: String, Sendable, Equatable, CaseIterable {
    /// Every song on its own (MPD's random mode).
    case songs
    /// Album by album.
    case albums
}
