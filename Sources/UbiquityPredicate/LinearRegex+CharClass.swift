// Character sets ([...]): their set expressions and how a scalar is tested against one.

extension LinearRegex {
    indirect enum SetExpr: Sendable {
        /// Sorted, non-overlapping, non-adjacent ranges.
        case ranges([ClosedRange<UInt32>])
        case property(Property, negated: Bool)
        case union([SetExpr])
        case intersection(SetExpr, SetExpr)
        case subtraction(SetExpr, SetExpr)
        case complement(SetExpr)

        func contains(_ v: UInt32) -> Bool {
            switch self {
            case .ranges(let ranges):
                var low = 0
                var high = ranges.count
                while low < high {
                    let mid = (low + high) / 2
                    if ranges[mid].upperBound < v { low = mid + 1 } else { high = mid }
                }
                return low < ranges.count && ranges[low].contains(v)
            case .property(let property, let negated):
                return property.contains(v) != negated
            case .union(let members):
                return members.contains { $0.contains(v) }
            case .intersection(let lhs, let rhs):
                return lhs.contains(v) && rhs.contains(v)
            case .subtraction(let lhs, let rhs):
                return lhs.contains(v) && !rhs.contains(v)
            case .complement(let inner):
                return !inner.contains(v)
            }
        }

        static func merged(_ input: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
            let sorted = input.sorted { $0.lowerBound < $1.lowerBound }
            var result: [ClosedRange<UInt32>] = []
            for range in sorted {
                if let last = result.last, range.lowerBound <= last.upperBound &+ 1 {
                    result[result.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
                } else {
                    result.append(range)
                }
            }
            return result
        }
    }

    struct CharClass: Sendable {
        let expr: SetExpr
        let negated: Bool
        /// Membership of the 128 ASCII scalars, negation applied: [plain low, plain high, folded low, folded high].
        let asciiBits: (UInt64, UInt64, UInt64, UInt64)

        init(_ expr: SetExpr, negated: Bool) {
            self.expr = expr
            self.negated = negated
            var bits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            for v in UInt32(0)..<128 {
                let bit: UInt64 = 1 << UInt64(v & 63)
                if expr.contains(v) != negated {
                    if v < 64 { bits.0 |= bit } else { bits.1 |= bit }
                }
                if Scalars.anyCaseVariant(of: v, { expr.contains($0) }) != negated {
                    if v < 64 { bits.2 |= bit } else { bits.3 |= bit }
                }
            }
            asciiBits = bits
        }

        func matches(_ v: UInt32, caseInsensitive: Bool) -> Bool {
            if v < 128 {
                let bit: UInt64 = 1 << UInt64(v & 63)
                let word = caseInsensitive ? (v < 64 ? asciiBits.2 : asciiBits.3) : (v < 64 ? asciiBits.0 : asciiBits.1)
                return word & bit != 0
            }
            if caseInsensitive {
                return Scalars.anyCaseVariant(of: v, { expr.contains($0) }) != negated
            }
            return expr.contains(v) != negated
        }
    }
}
