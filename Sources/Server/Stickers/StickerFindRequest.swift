import MPDProtocol
import MediaLibrary
import MusicModel

/// The arguments of `sticker find` after the type and URI:
/// `NAME [OP VALUE] [sort KEY] [window START:END]`.
///
/// MPD 0.23 knows `NAME` and `NAME OP VALUE` with the operators `=`, `<` and `>`; 0.24 adds
/// `eq`, `lt`, `gt`, `contains`, `starts_with`, and the `sort` (`uri`, `value`, `value_int`,
/// `-` for descending) and `window` modifiers after them.
struct StickerFindRequest: Equatable {
    /// The sticker name.
    var name: String
    /// `OP VALUE`.
    var condition: StickerCondition?
    /// `sort KEY`.
    var sort: StickerSort?
    /// `window START:END`.
    var window: RangeArgument?

    /// Parses the arguments from `NAME` on the way MPD 0.24's `handle_sticker` reads them
    /// (`src/command/StickerCommands.cxx`): it takes `window` off the end first, then `sort`,
    /// each only while the whole command still has six words or more; then a third word is the
    /// operator and a fourth its value, and any words after those are ignored. So
    /// `window 0:2 sort uri` makes `window` the operator, and `= 1 sort` finds `= 1`.
    /// - Throws: ACK 2 `bad operator "X"` for an unknown operator, `Unknown sort tag "X"` for
    ///   an unknown sort key, the range messages for a bad window, and `bad request` for an
    ///   operator without its value (where MPD reads past its arguments).
    init(arguments: ArraySlice<String>) throws(MPDError) {
        guard let name = arguments.first else { throw MPDError(.argument, "bad request") }
        self.name = name
        var rest = Array(arguments.dropFirst())
        // MPD counts the whole command: `find TYPE URI NAME` are its first four words.
        let hasModifier = { (word: String) in rest.count >= 2 && rest[rest.count - 2] == word }
        if hasModifier("window") {
            window = try Arguments.range(rest[rest.count - 1])
            rest.removeLast(2)
        }
        if hasModifier("sort") {
            let word = rest[rest.count - 1]
            let descending = word.hasPrefix("-")
            let key = descending ? String(word.dropFirst()) : word
            guard let known = StickerSort.Key(rawValue: key) else {
                throw MPDError(.argument, "Unknown sort tag \(key.mpdQuoted)")
            }
            sort = StickerSort(known, descending: descending)
            rest.removeLast(2)
        }
        guard let word = rest.first else { return }
        guard let comparison = StickerComparison(rawValue: word) else {
            throw MPDError(.argument, "bad operator \(word.mpdQuoted)")
        }
        guard rest.count >= 2 else { throw MPDError(.argument, "bad request") }
        condition = StickerCondition(comparison, rest[1])
    }
}
