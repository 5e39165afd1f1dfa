package import MusicModel
import Settings

extension PlayerController {
    /// What the state file should hold now.
    ///
    /// The queue is taken as a copy under the player's lock and listed after it: listing is a
    /// pass over every queued song, which under the lock would hold up every command and the
    /// pipeline's events. An edit that comes meanwhile copies the queue's arrays once instead (the copy is
    /// gone before the caller writes the file).
    package func savedState() -> SavedPlayerState {
        let status = self.status
        let (state, queue) = withCoreUnchecked { core in
            var saved = SavedPlayerState()
            saved.softwareVolume = core.volume ?? 100
            saved.state = status.state
            saved.current = status.current?.position
            saved.elapsed = status.elapsed ?? 0
            saved.random = core.queue.random
            saved.shuffleMode = core.queue.shuffleMode == core.configuredShuffleMode ? nil : core.queue.shuffleMode
            saved.repeatMode = core.queue.repeatMode
            saved.single = core.queue.single
            saved.consume = core.queue.consume
            saved.crossfade = core.crossfade
            saved.mixRampDB = core.mixRampDB
            saved.mixRampDelay = core.mixRampDelay
            saved.lastLoadedPlaylist = core.lastLoadedPlaylist
            return (saved, core.queue)
        }
        var saved = state
        saved.entries = queue.entries.map { entry in
            SavedPlayerState.Entry(
                uri: entry.song.uri, priority: entry.priority, range: entry.range,
                tags: entry.song.isStream ? entry.song.tags : [])
        }
        return saved
    }

    /// A value that changes whenever something the state file keeps changes (MPD's
    /// `StateFile::CheckModified` hash), except the position in the song, which moves by
    /// itself while it plays: compared between writes.
    package func stateFingerprint() -> [Int] {
        let status = self.status
        return [
            Int(status.queueVersion), status.current?.position ?? -1,
            status.random ? 1 : 0, status.shuffleMode == .albums ? 1 : 0, status.repeatMode ? 1 : 0,
            status.single.hashValue, status.consume.hashValue,
            status.crossfade, status.volume ?? -1, status.state.hashValue,
            // Bit patterns: a client may set any float (`mixrampdb -1e30`, `nan`), which
            // `Int(_:)` traps on.
            Int(truncatingIfNeeded: status.mixRampDB.bitPattern),
            Int(truncatingIfNeeded: status.mixRampDelay.bitPattern), status.lastLoadedPlaylist.hashValue,
        ]
    }

    /// Restores a saved state (MPD's `playlist_state_restore`).
    /// - Parameters:
    ///   - songs: the saved entries looked up in the database, `nil` where a song is gone
    ///     (those are skipped, as MPD skips them).
    ///   - restorePaused: start paused where the file says playing (`restore_paused`).
    package func restore(_ saved: SavedPlayerState, songs: [Song?], restorePaused: Bool) {
        update { core in
            // At start nobody hears these; a restore that waited for the first scan tells the
            // clients that connected meanwhile.
            defer {
                core.events = [.playlist, .player, .options]
                if core.volume != nil { core.events.insert(.mixer) }
            }
            if core.volume != nil {
                // `sw_volume` is the software mixer's, as in MPD: a hardware mixer keeps the
                // level the device has, which is what `status` shows.
                if let hardware = core.pipeline.hardwareVolume() {
                    core.volume = hardware
                    core.pipeline.setSoftwareVolume(saved.softwareVolume)
                } else {
                    core.volume = saved.softwareVolume
                    core.pipeline.setVolume(saved.softwareVolume)
                }
            }
            core.queue.repeatMode = saved.repeatMode
            core.queue.single = saved.single
            core.queue.consume = saved.consume
            core.pipeline.setBorderPause(saved.single != .off && !saved.repeatMode)
            core.crossfade = saved.crossfade
            core.mixRampDB = saved.mixRampDB
            core.mixRampDelay = saved.mixRampDelay
            core.lastLoadedPlaylist = saved.lastLoadedPlaylist
            // As in MPD, `current` then counts in the queue as restored: songs that are gone
            // leave no gap.
            let current = saved.current
            for (entry, song) in zip(saved.entries, songs) {
                guard let song, !core.queue.isFull else { continue }
                let id = core.queue.append(song, priority: entry.priority)
                if !entry.range.isWhole, let position = core.queue.position(ofID: id) {
                    core.queue.setRange(position: position, entry.range)
                }
            }
            if let mode = saved.shuffleMode { core.queue.shuffleMode = mode }
            if saved.random { core.setRandom(true) }
            guard !core.queue.isEmpty else {
                core.queue.incrementVersion()
                return
            }
            var position = current ?? 0
            if position >= core.queue.count { position = 0 }
            var state = saved.state
            if state == .play && restorePaused { state = .pause }
            if state != .stop {
                // Straight into the saved state: starting to play and pausing afterwards would
                // let a moment of audio through and move the position.
                let index = core.queue.random ? core.queue.orderIndex(ofPosition: position) : position
                let entry = core.queue.entry(atOrder: index)
                let offset = entry.playedDuration.map { min(saved.elapsed, $0) } ?? saved.elapsed
                core.playOrder(index, paused: state == .pause, offset: entry.range.start + offset)
            } else if saved.current != nil {
                core.current = core.queue.orderIndex(ofPosition: position)
            }
            core.queue.incrementVersion()
        }
    }

    private func withCoreUnchecked<T>(_ body: (inout PlayerCore) -> T) -> T {
        // A read that needs the whole core; it raises no events.
        withCore { core in body(&core) }
    }
}
