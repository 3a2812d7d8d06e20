import UbiquityPredicate

/// ISO-8601 parsing for command-line options, shared with the language's date literals.
enum ISO8601 {
    static func parse(_ text: String) -> Double? {
        guard case .constant(.date(let seconds))? = try? MetadataPredicate(parsing: "created == $time.iso(\(text))").dateOperand
        else { return nil }
        return seconds
    }
}

extension MetadataPredicate {
    fileprivate var dateOperand: Operand? {
        if case .comparison(let c) = self { return c.right }
        return nil
    }
}
