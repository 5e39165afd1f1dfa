import Foundation

/// Case folding for MPD's case-insensitive comparisons (`search`, `_ci` operators).
///
/// MPD canonicalises with ICU's NFKC_Casefold; compatibility composition followed by Unicode
/// lowercasing gives the same result for the text found in tags, without linking ICU.
enum TextFolding {
    /// The folded form of `text`.
    static func fold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII is the common case and needs no normalisation.
            return text.lowercased()
        }
        return text.precomposedStringWithCompatibilityMapping.lowercased()
    }
}
