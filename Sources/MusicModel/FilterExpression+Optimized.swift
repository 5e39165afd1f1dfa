extension FilterExpression {
    /// The filter simplified as MPD's `SongFilter::Optimize` does before it prints one: nested
    /// ANDs are merged into their parent, an AND of one item becomes that item, and a NOT
    /// around a tag or URI comparison becomes the negated comparison. A double NOT stays.
    package var optimized: FilterExpression {
        switch self {
        case .and(let operands):
            var items: [FilterExpression] = []
            for operand in operands {
                let inner = operand.optimized
                if case .and(let nested) = inner { items += nested } else { items.append(inner) }
            }
            return items.count == 1 ? items[0] : .and(items)
        case .not(let inner):
            switch inner.optimized {
            case .tag(let tag, var predicate):
                predicate.negated.toggle()
                return .tag(tag, predicate)
            case .anyTag(var predicate):
                predicate.negated.toggle()
                return .anyTag(predicate)
            case .uri(var predicate):
                predicate.negated.toggle()
                return .uri(predicate)
            case let other:
                return .not(other)
            }
        default:
            return self
        }
    }
}
