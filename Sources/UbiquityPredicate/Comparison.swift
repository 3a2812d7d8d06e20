/// One comparison: `[quantifier] left operator[options] right`.
public struct Comparison: Sendable, Hashable {
    public var quantifier: Quantifier
    public var left: Operand
    public var op: ComparisonOperator
    public var right: Operand
    public var options: ComparisonOptions

    public init(
        _ left: Operand, _ op: ComparisonOperator, _ right: Operand,
        options: ComparisonOptions = [], quantifier: Quantifier = .single
    ) {
        self.quantifier = quantifier
        self.left = left
        self.op = op
        self.right = right
        self.options = options
    }
}
