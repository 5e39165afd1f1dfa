import GRDB
import MusicModel

extension Library {
    /// MPD compiles a filter's regular expressions when it parses the filter, so a bad one is
    /// an error before anything runs. PCRE2 says what is wrong, as in MPD, when libpcre2 is
    /// there to say it (``PCRE2Syntax``).
    /// - Throws: ``LibraryError/invalidRegularExpression(pattern:syntax:)`` for a pattern that
    ///   does not compile.
    static func validateRegexes(_ expression: FilterExpression) throws(LibraryError) {
        func check(_ predicate: StringPredicate) throws(LibraryError) {
            guard predicate.operator == .regex else { return }
            if let syntax = PCRE2Syntax.error(in: predicate.value, caseless: predicate.foldCase) {
                throw .invalidRegularExpression(pattern: predicate.value, syntax: syntax)
            }
            do {
                _ = try RegexCache.shared.expression(predicate.value, caseless: predicate.foldCase)
            } catch {
                throw .invalidRegularExpression(pattern: predicate.value, syntax: nil)
            }
        }
        switch expression {
        case .tag(_, let predicate), .anyTag(let predicate), .uri(let predicate): try check(predicate)
        case .not(let inner): try validateRegexes(inner)
        case .and(let operands): for operand in operands { try validateRegexes(operand) }
        default: break
        }
    }

    /// MPD starts a filtered walk at the filter's first `base` that is not negated (its
    /// `SongFilter::GetBase`, after nested ANDs are flattened), so a base naming neither a
    /// directory nor a song is an error rather than an empty result.
    /// - Throws: ``LibraryError/noSuchDirectory(_:)``, or the database's error.
    static func validateBase(_ db: Database, _ expression: FilterExpression) throws {
        // "/" is the root to MPD's directory lookup, as "" is.
        guard let base = walkBase(expression), base != "", base != "/" else { return }
        if try LibraryStore.directory(db, path: base) != nil { return }
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM song WHERE uri = ?)", arguments: [base]) == true {
            return
        }
        throw LibraryError.noSuchDirectory(base)
    }

    /// The first `base` operand reached through ANDs alone, depth first.
    private static func walkBase(_ expression: FilterExpression) -> String? {
        switch expression {
        case .base(let directory): directory
        case .and(let operands): operands.lazy.compactMap(walkBase).first
        default: nil
        }
    }
}
