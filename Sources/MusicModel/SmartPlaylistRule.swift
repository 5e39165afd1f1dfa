/// What chooses the songs of a smart playlist (the Media Player framework's smart
/// `MPMediaPlaylist`, "created automatically according to user-specified criteria"): a filter,
/// an order and a limit, evaluated anew each time a client reads the playlist.
///
/// This is the rule as it applies at one moment: relative times in its text (`-30d`) are
/// already turned into UNIX times. The text itself is kept elsewhere (`SmartPlaylistDefinition`
/// in MPDProtocol), so that "added in the last 30 days" keeps moving with the clock.
package struct SmartPlaylistRule: Sendable, Equatable {
    /// What a smart playlist is sorted by.
    package enum SortKey: Sendable, Equatable {
        /// What `find … sort` sorts by: a tag, `Last-Modified` or `Added`.
        case library(SortOrder.Key)
        /// A song sticker read as an integer, 0 when missing (`sticker:playCount`).
        case sticker(String)
    }

    /// The order of a smart playlist: a key, and `-` for largest first.
    package struct Sort: Sendable, Equatable {
        /// What songs are compared by.
        package var key: SortKey
        /// Largest (or latest) first.
        package var descending: Bool

        /// Creates an order.
        package init(_ key: SortKey, descending: Bool = false) {
            self.key = key
            self.descending = descending
        }
    }

    /// Which songs belong; `nil` for every song of the library.
    package var filter: FilterExpression?
    /// The order; `nil` for the database's order (MPD's walk order). Equal songs keep it too.
    package var sort: Sort?
    /// At most this many songs, the first ones in the order; `nil` for all.
    package var limit: Int?

    /// Creates a rule.
    package init(filter: FilterExpression?, sort: Sort? = nil, limit: Int? = nil) {
        self.filter = filter
        self.sort = sort
        self.limit = limit
    }

    /// The names of the stickers the rule reads, in its filter and its order, each once.
    package var stickerNames: [String] {
        var names: [String] = []
        func collect(_ expression: FilterExpression) {
            switch expression {
            case .sticker(let name, _): if !names.contains(name) { names.append(name) }
            case .not(let inner): collect(inner)
            case .and(let operands): operands.forEach(collect)
            default: break
            }
        }
        if let filter { collect(filter) }
        if case .sticker(let name)? = sort?.key, !names.contains(name) { names.append(name) }
        return names
    }
}
