/// The permission bits MPD gives a client, which every command in the table requires a subset of.
///
/// The raw values are MPD's own (`src/Permission.hxx`): `read` 1, `add` 2, `control` 4, `admin` 8,
/// `player` 16. Configuration spells them `read,add,player,control,admin`; since MPD 0.23 `player`
/// is its own bit and granting `control` grants `player` too.
package struct Permissions: OptionSet, Sendable, Hashable {
    package let rawValue: UInt8

    /// Creates a permission set from MPD's bit values.
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Read the database, the queue and the status.
    package static let read = Permissions(rawValue: 1)
    /// Add songs to the queue.
    package static let add = Permissions(rawValue: 2)
    /// Control: edit stored playlists, update the database, and (implied) play.
    package static let control = Permissions(rawValue: 4)
    /// Administration: outputs, stickers, partitions, `kill`, `config`.
    package static let admin = Permissions(rawValue: 8)
    /// Playback control: play, pause, seek, volume, queue edits.
    package static let player = Permissions(rawValue: 16)

    /// No permission at all: only the commands anyone may run (`ping`, `password`, …).
    package static let none: Permissions = []
    /// Every permission: what a client gets when no password or permission option is configured.
    package static let all: Permissions = [.read, .add, .control, .admin, .player]

    /// An error in a permission list such as `read,add,contrl`.
    package struct ParseError: Error, Equatable, CustomStringConvertible {
        /// The word that is not a permission name.
        package let word: String
        package var description: String { "unknown permission \"\(word)\"" }
    }

    /// Parses a comma-separated permission list the way MPD's `ParsePermissions` does: empty items
    /// are skipped, surrounding blanks are ignored, an unknown name is an error, and `control`
    /// implies `player`.
    /// - Throws: ``ParseError`` naming the first unknown word.
    package init(parsing list: String) throws(ParseError) {
        var result: Permissions = []
        for item in list.split(separator: ",", omittingEmptySubsequences: true) {
            let word = item.trimmingBlanks()
            switch word {
            case "": continue
            case "read": result.insert(.read)
            case "add": result.insert(.add)
            case "control": result.insert([.control, .player])
            case "admin": result.insert(.admin)
            case "player": result.insert(.player)
            default: throw ParseError(word: String(word))
            }
        }
        self = result
    }
}

extension Substring {
    /// The substring without leading and trailing spaces and tabs.
    fileprivate func trimmingBlanks() -> Substring {
        var s = self
        while let first = s.first, first == " " || first == "\t" { s.removeFirst() }
        while let last = s.last, last == " " || last == "\t" { s.removeLast() }
        return s
    }
}
