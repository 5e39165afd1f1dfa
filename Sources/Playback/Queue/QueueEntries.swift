import MusicModel

/// What the queue keeps of an entry at its position: small, so that an edit that shifts
/// positions (`move`, `delete`, `shuffle`) moves a few bytes per entry rather than the song.
struct QueueItem: Sendable, Equatable {
    /// The slot of ``Queue``'s songs that holds the entry's song.
    var slot: UInt32
    /// The entry's id.
    var id: UInt32
    /// The queue version at which the entry last changed (`plchanges`).
    var version: UInt32
    /// The priority (0–255).
    var priority: UInt8
}

/// An entry's song as the queue keeps it, in a slot that stays put while the entry moves.
struct QueuedSong: Sendable {
    /// The song as it was when it was added.
    var song: Song
    /// The part of the song that plays (`rangeid`).
    var range: SongTimeRange
    /// The id of the entry that owns the slot, so that the slot can move when another is freed.
    var id: UInt32
}

/// The queue's entries in position order, as read: a view of the queue at one version that
/// later edits of the queue do not change.
package struct QueueEntries: RandomAccessCollection, Sendable {
    let items: [QueueItem]
    let songs: [QueuedSong]

    /// The first position, 0.
    package var startIndex: Int { 0 }
    /// The number of entries.
    package var endIndex: Int { items.count }

    /// The entry at `position`.
    package subscript(position: Int) -> QueueEntry {
        let item = items[position]
        let stored = songs[Int(item.slot)]
        return QueueEntry(
            song: stored.song, id: Int(item.id), version: item.version, priority: item.priority, range: stored.range)
    }
}
