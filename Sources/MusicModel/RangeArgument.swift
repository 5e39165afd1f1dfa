/// A half-open range of positions in a list (the queue, a stored playlist, a result): what
/// MPD's `START:END` argument (`RangeArg`) names, under MPD's name for it.
package struct RangeArgument: Sendable, Equatable {
    /// The first position.
    package var start: Int
    /// One past the last position, or `nil` for an open end (`N:`, or `-1` meaning "all").
    package var end: Int?

    /// Creates a range.
    package init(start: Int, end: Int?) {
        self.start = start
        self.end = end
    }

    /// The whole list: what the legacy argument `-1` means.
    package static let all = RangeArgument(start: 0, end: nil)

    /// The end clipped to `length`.
    package func upperBound(clippedTo length: Int) -> Int { min(end ?? length, length) }
}
