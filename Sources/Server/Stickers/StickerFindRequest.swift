import MediaLibrary
import MPDProtocol

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

    /// Parses the arguments from `NAME` on.
    /// - Throws: ACK 2 `bad operator "X"` for an unknown operator, `Unknown sort tag` for an
    ///   unknown sort key, the range messages for a bad window, and `bad request` for any other
    ///   shape (an operator without its value, an unknown modifier, a modifier twice).
    init(arguments: ArraySlice<String>) throws(MPDError) {
        guard let name = arguments.first else { throw MPDError(.argument, "bad request") }
        self.name = name
        var rest = arguments.dropFirst()
        if rest.count >= 2, let word = rest.first, word != "sort", word != "window" {
            guard let comparison = StickerComparison(rawValue: word) else {
                throw MPDError(.argument, "bad operator \"\(word)\"")
            }
            condition = StickerCondition(comparison, rest[rest.startIndex + 1])
            rest = rest.dropFirst(2)
        }
        while let word = rest.first {
            guard rest.count >= 2 else { throw MPDError(.argument, "bad request") }
            let value = rest[rest.startIndex + 1]
            rest = rest.dropFirst(2)
            switch word {
            case "sort" where sort == nil:
                let descending = value.hasPrefix("-")
                guard let key = StickerSort.Key(rawValue: descending ? String(value.dropFirst()) : value) else {
                    throw MPDError(.argument, "Unknown sort tag")
                }
                sort = StickerSort(key, descending: descending)
            case "window" where window == nil:
                window = try Arguments.range(value)
            default:
                throw MPDError(.argument, "bad request")
            }
        }
    }
}
