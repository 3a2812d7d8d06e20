/// Type checking of one comparison, done by the parser while source offsets are known.
///
/// Rules (docs/predicates.md, "Types"):
/// - the side that is an attribute decides the type; a literal on the other side must fit it;
/// - a string compared with a date attribute must be an ISO-8601 date and becomes a date;
/// - a `%@` argument that arrives as a string is converted to the attribute's type when it
///   reads as one (command lines and JSON clients pass strings); a literal is never converted;
/// - a boolean attribute accepts `TRUE`/`FALSE`/`YES`/`NO` and the numbers 0 and 1;
/// - `[c]`, `[d]` and `w` apply to strings only; `nil` only to `==`, `!=` and `IN`.
enum TypeChecker {
    /// The type of a value as the checker sees it.
    enum Kind: Equatable {
        case string, number, date, bool, null, aggregate
        case list   // a multi-valued attribute
        case data, json   // columns of a store: only compared with nil

        var noun: String {
            switch self {
            case .string: "a string"
            case .number: "a number"
            case .date: "a date"
            case .bool: "a boolean"
            case .null: "nil"
            case .aggregate: "an aggregate"
            case .list: "a list of strings"
            case .data: "data"
            case .json: "JSON"
            }
        }

        var isOrderable: Bool { self == .string || self == .number || self == .date }

        init(_ type: AttributeType) {
            switch type {
            case .string: self = .string
            case .integer: self = .number
            case .date: self = .date
            case .bool: self = .bool
            case .stringList: self = .list
            }
        }

        init(_ expression: Operand) {
            switch expression {
            case .attribute(let a): self = Kind(a.type)
            case .column(let c):
                switch c.kind {
                case .string: self = .string
                case .integer, .double: self = .number
                case .date: self = .date
                case .bool: self = .bool
                case .data: self = .data
                case .json: self = .json
                case .list: self = .list
                }
            case .relativeDate: self = .date
            case .aggregate: self = .aggregate
            case .constant(let v):
                switch v {
                case .null: self = .null
                case .bool: self = .bool
                case .integer, .double: self = .number
                case .string: self = .string
                case .date: self = .date
                case .list: self = .aggregate
                }
            }
        }
    }

    /// - Parameter regexInstructions: the compiled size of the predicate's MATCHES patterns so far;
    ///   this comparison's is added and the total checked against ``PredicateLimits``.
    static func check(
        quantifier: Quantifier, left: ParsedOperand, op: ComparisonOperator, opOffset: Int, right: ParsedOperand,
        options: ComparisonOptions, rangeParts: [ParsedOperand]? = nil, regexInstructions: inout Int
    ) throws(MetadataPredicateError) -> Comparison {
        var left = left, right = right
        let opName = op == .between && rangeParts != nil ? "InRange" : op.rawValue
        var leftKind = Kind(left.expression)
        let rightKind = Kind(right.expression)

        // Multi-valued attributes: quantifiers, membership, and Spotlight's implicit ANY.
        var membership = false
        if quantifier != .single {
            guard left.expression.isMultiValued else {
                let example = if case .column = left.expression { "a to-many relationship" } else { "a multi-valued attribute such as kMDItemUserTags" }
                throw MetadataPredicateError(.type, at: left.offset,
                    "\(quantifier.rawValue) needs \(example) after it, found \(left.text)")
            }
            leftKind = .string
        } else if leftKind == .list {
            if op == .contains {
                membership = true
                leftKind = .string
            } else if op == .in, rightKind != .aggregate {
                throw MetadataPredicateError(.type, at: left.offset,
                    "\(left.text) is a list; write \(left.text) IN {...} or 'value' IN \(left.text)")
            } else {
                leftKind = .string   // implicit ANY, as Spotlight does
            }
        }
        if rightKind == .list {
            guard op == .in else {
                throw MetadataPredicateError(.type, at: right.offset,
                    "\(right.text) is a list; put it on the left (ANY \(right.text) \(op.rawValue) ...) or use IN")
            }
            guard leftKind == .string else {
                throw MetadataPredicateError(.type, at: left.offset,
                    "expected a string to look up IN \(right.text), found \(leftKind.noun)")
            }
            membership = true
        }

        let attributeName = left.expression.fieldName ?? right.expression.fieldName ?? "the other side"

        // The operand types for each operator.
        if membership {
            if left.expression.isField {
                right.expression = try coerce(right, to: .string, attributeName: attributeName, opName: opName)
            } else {
                left.expression = try coerce(left, to: .string, attributeName: attributeName, opName: opName)
            }
        } else {
            switch op {
            case .between, .in:
                if op == .between {
                    guard leftKind.isOrderable else {
                        throw MetadataPredicateError(.type, at: left.offset,
                            "\(opName) needs a string, number or date on its left, found \(leftKind.noun)\(shown(left))")
                    }
                }
                guard case .aggregate(var elements) = right.expression else {
                    throw MetadataPredicateError(.type, at: right.offset,
                        "expected an aggregate such as {1, 10} after \(opName), found \(right.text)")
                }
                if op == .between, elements.count != 2 {
                    throw MetadataPredicateError(.type, at: right.offset,
                        "BETWEEN needs exactly two values {low, high}, found \(elements.count)")
                }
                let parts = rangeParts ?? (right.parts.count == elements.count ? right.parts : nil)
                if left.expression.isField {
                    for i in elements.indices {
                        let part = parts?[i] ?? ParsedOperand(expression: elements[i], offset: right.offset,
                                                              argumentIndex: right.argumentIndex, trailing: [],
                                                              text: Printer.expression(elements[i]),
                                                              isSubstituted: right.isSubstituted)
                        elements[i] = try coerce(part, to: leftKind, attributeName: attributeName, opName: opName,
                                                 allowNull: op == .in)
                    }
                    right.expression = .aggregate(elements)
                } else {
                    for (i, element) in elements.enumerated() {
                        let kind = Kind(element)
                        if kind != .null, kind != leftKind {
                            throw MetadataPredicateError(.type, at: parts?[i].offset ?? right.offset,
                                "cannot compare \(leftKind.noun) with \(kind.noun) \(Printer.expression(element)) in \(opName)")
                        }
                    }
                }
            case .like, .matches, .beginsWith, .endsWith, .contains:
                guard leftKind == .string else {
                    throw MetadataPredicateError(.type, at: left.offset,
                        "\(op.rawValue) compares strings; \(left.text) is \(leftKind.noun)")
                }
                guard rightKind == .string else {
                    throw MetadataPredicateError(.type, at: right.offset,
                        "expected a string after \(op.rawValue), found \(rightKind.noun)\(shown(right))")
                }
                if op == .like || op == .matches {
                    guard case .constant(.string(let pattern)) = right.expression else {
                        throw MetadataPredicateError(.type, at: right.offset,
                            "the pattern of \(op.rawValue) must be a string literal or argument, found \(right.text)")
                    }
                    if op == .matches {
                        let regex: LinearRegex
                        do {
                            regex = try LinearRegex(pattern, caseInsensitive: options.contains(.caseInsensitive),
                                                    diacriticInsensitive: options.contains(.diacriticInsensitive))
                        } catch {
                            throw MetadataPredicateError(.regex, at: regexOffset(error.offset, in: pattern, operand: right),
                                "invalid MATCHES pattern: \(error.message)")
                        }
                        // Each pattern is bounded by itself; many of them must be bounded together too.
                        regexInstructions += regex.instructionCount
                        guard regexInstructions <= PredicateLimits.maxTotalRegexInstructions else {
                            throw MetadataPredicateError(.tooComplex, at: opOffset,
                                "the MATCHES patterns of this predicate compile to more than \(PredicateLimits.maxTotalRegexInstructions) instructions in total")
                        }
                    }
                }
            case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
                let allowNull = !op.isOrdering
                switch (left.expression.isField, right.expression.isField) {
                case (true, true):
                    guard leftKind == rightKind else {
                        throw MetadataPredicateError(.type, at: right.offset,
                            "cannot compare \(left.text) (\(leftKind.noun)) with \(right.text) (\(rightKind.noun))")
                    }
                    if leftKind == .data || leftKind == .json {
                        throw MetadataPredicateError(.type, at: opOffset,
                            "\(left.text) is \(leftKind.noun), which is only compared with nil (== nil, != nil)")
                    }
                case (true, false):
                    right.expression = try coerce(right, to: leftKind, attributeName: attributeName, opName: opName,
                                                  allowNull: allowNull)
                case (false, true):
                    left.expression = try coerce(left, to: rightKind, attributeName: attributeName, opName: opName,
                                                 allowNull: allowNull)
                case (false, false):
                    guard leftKind == rightKind || (allowNull && (leftKind == .null || rightKind == .null)) else {
                        throw MetadataPredicateError(.type, at: right.offset,
                            "cannot compare \(leftKind.noun) with \(rightKind.noun)\(shown(right))")
                    }
                    if leftKind == .aggregate {
                        throw MetadataPredicateError(.type, at: left.offset, "cannot compare aggregates with \(opName)")
                    }
                }
                if op.isOrdering {
                    let kind = Kind(left.expression) == .list ? Kind.string : Kind(left.expression)
                    guard kind.isOrderable || (quantifier != .single && kind == .list) else {
                        throw MetadataPredicateError(.type, at: opOffset,
                            "\(op.rawValue) orders strings, numbers and dates; \(left.text) is \(kind.noun)")
                    }
                }
            }
        }

        // Modifiers apply to string comparisons only.
        if !options.isEmpty {
            guard leftKind == .string else {
                throw MetadataPredicateError(.type, at: opOffset,
                    "modifier [\(options.letters)] applies to strings; \(left.text) is \(leftKind.noun)")
            }
            if options.contains(.wordBased), ![.equal, .notEqual, .like].contains(op) {
                throw MetadataPredicateError(.type, at: opOffset, "the word modifier w applies to ==, != and LIKE only")
            }
        }

        return Comparison(left.expression, op, right.expression, options: options, quantifier: quantifier)
    }

    /// Converts a non-attribute operand to `kind`, or explains why it cannot be.
    static func coerce(
        _ operand: ParsedOperand, to kind: Kind, attributeName: String, opName: String, allowNull: Bool = true
    ) throws(MetadataPredicateError) -> Operand {
        let have = Kind(operand.expression)
        if have == kind { return operand.expression }
        let fromArgument = operand.isSubstituted
        func mismatch(_ advice: String = "") -> MetadataPredicateError {
            MetadataPredicateError(.type, at: operand.offset,
                "expected \(kind.noun) to compare with \(attributeName), found \(have.noun)\(shown(operand))\(advice)")
        }
        if have == .null {
            guard allowNull else {
                throw MetadataPredicateError(.type, at: operand.offset, "cannot compare with nil using \(opName)")
            }
            return operand.expression
        }
        guard case .constant(let value) = operand.expression else { throw mismatch() }
        switch (kind, value) {
        case (.date, .string(let s)):
            guard let seconds = ISODate.parse(s) else {
                throw mismatch(" (dates are ISO 8601, e.g. '2026-11-22T10:00:00Z')")
            }
            return .constant(.date(seconds))
        case (.date, .integer), (.date, .double):
            throw mismatch(" (write $time.iso(...) or CAST(number, 'NSDate'))")
        case (.number, .string(let s)) where fromArgument:
            if let i = Int64(s) { return .constant(.integer(i)) }
            if let d = Double(s), d.isFinite { return .constant(.double(d)) }
            throw mismatch()
        case (.bool, .integer(let i)) where i == 0 || i == 1:
            return .constant(.bool(i == 1))
        case (.bool, .string(let s)) where fromArgument:
            switch s.lowercased() {
            case "true", "yes", "1": return .constant(.bool(true))
            case "false", "no", "0": return .constant(.bool(false))
            default: throw mismatch()
            }
        default:
            throw mismatch()
        }
    }

    private static func shown(_ operand: ParsedOperand) -> String {
        switch operand.expression {
        case .constant(.null): return ""
        case .constant(let v): return " " + Printer.literal(v)
        case .aggregate: return " " + Printer.expression(operand.expression)
        default: return " " + operand.text
        }
    }

    /// Where a regex error points in the predicate text: inside a plain string literal, at the
    /// character the engine names; for escaped literals, arguments and variables, at the operand.
    private static func regexOffset(_ characterOffset: Int, in pattern: String, operand: ParsedOperand) -> Int {
        guard !operand.isSubstituted, operand.argumentIndex == nil, !operand.text.contains("\\"),
              operand.text.unicodeScalars.first == "'" || operand.text.unicodeScalars.first == "\"" else {
            return operand.offset
        }
        let prefix = pattern.prefix(characterOffset)
        return operand.offset + 1 + prefix.unicodeScalars.count
    }
}
