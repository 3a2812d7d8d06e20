// The pattern parser: ICU-style syntax to a Node tree, refusing what needs backtracking.

extension LinearRegex {
    struct Flags {
        var caseInsensitive: Bool
        var multiline = false
        var dotAll = false
        var extended = false
    }

    struct Parser {
        private var source: [UInt32] = []
        /// Character offset of each scalar in `source`.
        private var offsets: [Int] = []
        private let endOffset: Int
        private var position = 0
        private var flags: Flags
        private var quoting = false
        private let diacriticInsensitive: Bool
        var classes: [CharClass] = []

        init(pattern: String, caseInsensitive: Bool, diacriticInsensitive: Bool) {
            var characterIndex = 0
            for character in pattern {
                if character.isASCII {
                    for scalar in character.unicodeScalars {
                        source.append(scalar.value)
                        offsets.append(characterIndex)
                    }
                } else {
                    for scalar in String(character).canonicallyComposed.unicodeScalars {
                        source.append(scalar.value)
                        offsets.append(characterIndex)
                    }
                }
                characterIndex += 1
            }
            endOffset = characterIndex
            flags = Flags(caseInsensitive: caseInsensitive)
            self.diacriticInsensitive = diacriticInsensitive
        }

        // MARK: Cursor

        private func error(_ message: String, at index: Int) -> LinearRegexError {
            LinearRegexError(offset: index < offsets.count ? offsets[index] : endOffset, message: message)
        }

        private var atEnd: Bool { position >= source.count }

        private func peek(_ ahead: Int = 0) -> UInt32? {
            let index = position + ahead
            return index < source.count ? source[index] : nil
        }

        private func peekIs(_ character: Character, _ ahead: Int = 0) -> Bool {
            guard let v = peek(ahead) else { return false }
            return v == character.unicodeScalars.first!.value
        }

        private func text(_ range: Range<Int>) -> String {
            var view = String.UnicodeScalarView()
            for index in range where index < source.count {
                if let scalar = Unicode.Scalar(source[index]) { view.append(scalar) }
            }
            return String(view)
        }

        /// In `(?x)` mode, skips whitespace and `#` comments.
        private mutating func skipInsignificant() {
            guard flags.extended, !quoting else { return }
            while let v = peek() {
                if Scalars.isSpace(v) {
                    position += 1
                } else if v == 0x23 {
                    while let c = peek(), !Scalars.isLineTerminator(c) { position += 1 }
                } else {
                    return
                }
            }
        }

        private func checkSize(_ size: Int, at index: Int) throws(LinearRegexError) {
            if size + 1 > LinearRegex.maxInstructions {
                throw error("pattern too complex: it would compile to more than \(LinearRegex.maxInstructions) instructions", at: index)
            }
        }

        // MARK: Structure

        mutating func parse() throws(LinearRegexError) -> Node {
            let tree = try parseAlternation(depth: 0)
            if !atEnd {
                throw error("unbalanced ')'", at: position)
            }
            try checkSize(tree.size, at: 0)
            return tree
        }

        private mutating func parseAlternation(depth: Int) throws(LinearRegexError) -> Node {
            var branches = [try parseConcatenation(depth: depth)]
            var total = branches[0].size
            while peekIs("|") {
                let bar = position
                position += 1
                let branch = try parseConcatenation(depth: depth)
                total += branch.size + 2
                try checkSize(total, at: bar)
                branches.append(branch)
            }
            return .alternation(branches)
        }

        private mutating func parseConcatenation(depth: Int) throws(LinearRegexError) -> Node {
            var items: [Node] = []
            var itemStarts: [Int] = []
            while true {
                let start: Int
                var atom: Node
                if quoting {
                    guard let v = peek() else { break }
                    start = position
                    if v == 0x5C && peekIs("E", 1) {
                        position += 2
                        quoting = false
                        continue
                    }
                    position += 1
                    atom = .leaf(.literal(v, caseInsensitive: flags.caseInsensitive))
                    if peekIs("\\") && peekIs("E", 1) {
                        position += 2
                        quoting = false
                    } else {
                        items.append(atom)
                        itemStarts.append(start)
                        continue
                    }
                } else {
                    skipInsignificant()
                    guard let v = peek(), v != 0x7C, v != 0x29 else { break }
                    start = position
                    guard let parsed = try parseAtom(depth: depth) else {
                        // A flag setting, comment, `\Q` or `\E`: nothing a quantifier could apply to.
                        skipInsignificant()
                        if !quoting, let q = peek(), isQuantifierStart(q) {
                            throw error("quantifier '\(Scalars.show(q))' has nothing to repeat", at: position)
                        }
                        continue
                    }
                    atom = parsed
                }
                skipInsignificant()
                let quantifierStart = position
                if let (min, max) = try parseQuantifier() {
                    if atom.isAssertion {
                        throw error("quantifier '\(Scalars.show(source[quantifierStart]))' follows an anchor or boundary assertion; nothing to repeat", at: quantifierStart)
                    }
                    atom = .repetition(normalizeLiterals(in: atom), min: min, max: max)
                    try checkSize(atom.size, at: quantifierStart)
                    skipInsignificant()
                    if let q = peek(), isQuantifierStart(q) {
                        throw error("quantifier '\(Scalars.show(q))' follows another quantifier; nothing to repeat", at: position)
                    }
                }
                items.append(atom)
                itemStarts.append(start)
            }
            let nodes = normalizeRuns(items)
            var total = 0
            for (index, node) in nodes.enumerated() {
                total += node.size
                if total + 1 > LinearRegex.maxInstructions {
                    try checkSize(total, at: itemStarts[Swift.min(index, itemStarts.count - 1)])
                }
            }
            return .concat(nodes)
        }

        private func isQuantifierStart(_ v: UInt32) -> Bool {
            v == 0x2A || v == 0x2B || v == 0x3F || v == 0x7B
        }

        // MARK: Literal normalization

        /// Applies NFC (or diacritic stripping) to a single quantified literal.
        private func normalizeLiterals(in node: Node) -> Node {
            guard case .literal(let v, let caseInsensitive) = node.kind, v >= 0x80 else { return node }
            let normalized = Scalars.canonical([v], diacriticInsensitive: diacriticInsensitive)
            return .concat(normalized.map { .leaf(.literal($0, caseInsensitive: caseInsensitive)) })
        }

        /// Normalizes runs of adjacent unquantified literals together, so that a base letter
        /// followed by a combining mark compares like the precomposed letter in the subject.
        private func normalizeRuns(_ items: [Node]) -> [Node] {
            var result: [Node] = []
            var run: [UInt32] = []
            var runCaseInsensitive = false
            func flush() {
                guard !run.isEmpty else { return }
                for v in Scalars.canonical(run, diacriticInsensitive: diacriticInsensitive) {
                    result.append(.leaf(.literal(v, caseInsensitive: runCaseInsensitive)))
                }
                run.removeAll()
            }
            for item in items {
                if case .literal(let v, let caseInsensitive) = item.kind {
                    if !run.isEmpty && caseInsensitive != runCaseInsensitive { flush() }
                    runCaseInsensitive = caseInsensitive
                    run.append(v)
                } else {
                    flush()
                    result.append(item)
                }
            }
            flush()
            return result
        }

        // MARK: Atoms

        private mutating func parseAtom(depth: Int) throws(LinearRegexError) -> Node? {
            let start = position
            let v = source[position]
            switch v {
            case 0x28: // (
                return try parseGroup(depth: depth)
            case 0x5B: // [
                let (expr, negated) = try parseClass(depth: depth + 1)
                return makeSet(expr, negated: negated)
            case 0x2E: // .
                position += 1
                return .leaf(.any(dotAll: flags.dotAll))
            case 0x5E: // ^
                position += 1
                return .leaf(.assertion(flags.multiline ? .startOfLine : .startOfText))
            case 0x24: // $
                position += 1
                return .leaf(.assertion(flags.multiline ? .endOfLine : .endOfTextOrFinalTerminator))
            case 0x5C: // backslash
                switch try parseEscape(inClass: false) {
                case .scalar(let scalar):
                    return .leaf(.literal(scalar, caseInsensitive: flags.caseInsensitive))
                case .set(let expr):
                    return makeSet(expr, negated: false)
                case .assertion(let assertion):
                    return .leaf(.assertion(assertion))
                case .lineBreak:
                    let crlf = Node.concat([.leaf(.literal(0x0D, caseInsensitive: false)), .leaf(.literal(0x0A, caseInsensitive: false))])
                    return .alternation([crlf, makeSet(.property(.verticalSpace, negated: false), negated: false)])
                case .quoteStart:
                    quoting = true
                    return nil
                case .quoteEnd:
                    return nil
                }
            case 0x2A, 0x2B, 0x3F: // * + ?
                throw error("quantifier '\(Scalars.show(v))' has nothing to repeat", at: start)
            case 0x7B: // {
                throw error("quantifier '{' has nothing to repeat (write '\\{' for a literal brace)", at: start)
            default:
                position += 1
                return .leaf(.literal(v, caseInsensitive: flags.caseInsensitive))
            }
        }

        private mutating func makeSet(_ expr: SetExpr, negated: Bool) -> Node {
            classes.append(CharClass(expr, negated: negated))
            return .leaf(.set(classes.count - 1, caseInsensitive: flags.caseInsensitive))
        }

        // MARK: Quantifiers

        private mutating func parseQuantifier() throws(LinearRegexError) -> (Int, Int?)? {
            guard let v = peek() else { return nil }
            let result: (Int, Int?)
            switch v {
            case 0x2A: result = (0, nil); position += 1
            case 0x2B: result = (1, nil); position += 1
            case 0x3F: result = (0, 1); position += 1
            case 0x7B: result = try parseInterval()
            default: return nil
            }
            // A lazy modifier does not change whether a whole match exists. A possessive one
            // does (it never gives back, like an atomic group), so it is refused.
            if let modifier = peek(), modifier == 0x3F {
                position += 1
            } else if let modifier = peek(), modifier == 0x2B {
                throw error("possessive quantifiers such as 'a++' are not supported (MATCHES uses a linear-time engine)",
                            at: position)
            }
            return result
        }

        private mutating func parseInterval() throws(LinearRegexError) -> (Int, Int?) {
            let start = position
            position += 1
            func malformed() -> LinearRegexError {
                error("malformed repetition '{': expected {n}, {n,} or {n,m} (write '\\{' for a literal brace)", at: start)
            }
            guard let minimum = readNumber() else { throw malformed() }
            var maximum: Int? = minimum
            if peekIs(",") {
                position += 1
                maximum = readNumber()
            }
            guard peekIs("}") else { throw malformed() }
            position += 1
            for count in [minimum, maximum ?? 0] where count > LinearRegex.maxRepetition {
                throw error("repetition count \(count) in '\(text(start..<position))' exceeds the maximum of \(LinearRegex.maxRepetition)", at: start)
            }
            if let maximum, maximum < minimum {
                throw error("repetition '\(text(start..<position))' has its minimum greater than its maximum", at: start)
            }
            return (minimum, maximum)
        }

        private mutating func readNumber() -> Int? {
            var value: Int?
            while let v = peek(), v >= 0x30, v <= 0x39 {
                value = Swift.min((value ?? 0) * 10 + Int(v - 0x30), 1_000_000)
                position += 1
            }
            return value
        }

        // MARK: Groups

        private static func isNameStart(_ v: UInt32) -> Bool {
            let lower = v | 0x20
            return lower >= 0x61 && lower <= 0x7A
        }

        private mutating func parseGroup(depth: Int) throws(LinearRegexError) -> Node? {
            let start = position
            if depth >= LinearRegex.maxNesting {
                throw error("pattern too complex: groups nested more than \(LinearRegex.maxNesting) deep", at: start)
            }
            position += 1
            var scopedFlags = flags
            if peekIs("?") {
                position += 1
                guard let v = peek() else {
                    throw error("missing ')' to close the group opened here", at: start)
                }
                let unsupported = "(MATCHES uses a linear-time engine)"
                switch v {
                case 0x3A: // :
                    position += 1
                case 0x3D: // =
                    throw error("lookahead '(?=' is not supported \(unsupported)", at: start)
                case 0x21: // !
                    throw error("negative lookahead '(?!' is not supported \(unsupported)", at: start)
                case 0x3E: // >
                    throw error("atomic groups '(?>' are not supported \(unsupported)", at: start)
                case 0x23: // # comment
                    while let c = peek(), c != 0x29 { position += 1 }
                    guard peekIs(")") else {
                        throw error("missing ')' to close the comment opened here", at: start)
                    }
                    position += 1
                    return nil
                case 0x3C: // <
                    if peekIs("=", 1) {
                        throw error("lookbehind '(?<=' is not supported \(unsupported)", at: start)
                    }
                    if peekIs("!", 1) {
                        throw error("negative lookbehind '(?<!' is not supported \(unsupported)", at: start)
                    }
                    position += 1
                    try parseGroupName(terminator: ">")
                case 0x50: // P
                    if peekIs("<", 1) {
                        position += 2
                        try parseGroupName(terminator: ">")
                    } else if peekIs("=", 1) {
                        throw error("backreferences are not supported \(unsupported)", at: start)
                    } else {
                        throw error("unknown group syntax '(?P'", at: start)
                    }
                case 0x27: // '
                    position += 1
                    try parseGroupName(terminator: "'")
                case 0x52, 0x26, 0x30...0x39: // R & digits
                    throw error("recursion and subroutine calls are not supported \(unsupported)", at: start)
                default:
                    guard Parser.isNameStart(v) || v == 0x2D else {
                        throw error("unknown group syntax '(?\(Scalars.show(v))'", at: start)
                    }
                    var enable = true
                    while let c = peek(), c != 0x29, c != 0x3A {
                        switch c {
                        case 0x2D:
                            guard enable else { throw error("unexpected '-' in inline flags", at: position) }
                            enable = false
                        case 0x69: scopedFlags.caseInsensitive = enable
                        case 0x6D: scopedFlags.multiline = enable
                        case 0x73: scopedFlags.dotAll = enable
                        case 0x78: scopedFlags.extended = enable
                        default:
                            if Parser.isNameStart(c) {
                                throw error("inline flag '\(Scalars.show(c))' is not supported (use i, m, s or x)", at: position)
                            }
                            throw error("unknown group syntax '\(text(start..<(position + 1)))'", at: start)
                        }
                        position += 1
                    }
                    guard let terminator = peek() else {
                        throw error("missing ')' to close the group opened here", at: start)
                    }
                    position += 1
                    if terminator == 0x29 {
                        // `(?i)`: applies to the rest of the enclosing group.
                        flags = scopedFlags
                        return nil
                    }
                }
            }
            let saved = flags
            flags = scopedFlags
            let body = try parseAlternation(depth: depth + 1)
            guard peekIs(")") else {
                throw error("missing ')' to close the group opened here", at: start)
            }
            position += 1
            flags = saved
            return body
        }

        private mutating func parseGroupName(terminator: Character) throws(LinearRegexError) {
            let nameStart = position
            guard let first = peek(), Parser.isNameStart(first) else {
                throw error("invalid group name: it must start with an ASCII letter", at: nameStart)
            }
            while let v = peek(), Parser.isNameStart(v) || (v >= 0x30 && v <= 0x39) {
                position += 1
            }
            guard peekIs(terminator) else {
                throw error("invalid group name: expected '\(terminator)' after the name", at: position)
            }
            position += 1
        }

        // MARK: Escapes

        enum Escape {
            case scalar(UInt32)
            case set(SetExpr)
            case assertion(Assertion)
            case lineBreak
            case quoteStart
            case quoteEnd
        }

        private mutating func parseEscape(inClass: Bool) throws(LinearRegexError) -> Escape {
            let start = position
            position += 1
            guard let v = peek() else {
                throw error("trailing backslash '\\' at end of pattern", at: start)
            }
            position += 1
            let unsupported = "(MATCHES uses a linear-time engine)"
            func assertion(_ kind: Assertion) throws(LinearRegexError) -> Escape {
                if inClass {
                    throw error("'\\\(Scalars.show(v))' is an assertion and cannot appear inside a character class", at: start)
                }
                return .assertion(kind)
            }
            switch v {
            case 0x74: return .scalar(0x09) // t
            case 0x6E: return .scalar(0x0A) // n
            case 0x72: return .scalar(0x0D) // r
            case 0x66: return .scalar(0x0C) // f
            case 0x65: return .scalar(0x1B) // e
            case 0x61: return .scalar(0x07) // a
            case 0x75: return .scalar(try readHex(exactly: 4, escapeStart: start)) // u
            case 0x55: return .scalar(try readHex(exactly: 8, escapeStart: start)) // U
            case 0x78: // x
                if peekIs("{") {
                    position += 1
                    let digitsStart = position
                    var value: UInt32 = 0
                    while let d = peek(), let digit = Parser.hexValue(d) {
                        value = Swift.min(value &* 16 &+ digit, 0x110000)
                        position += 1
                    }
                    guard position > digitsStart, position - digitsStart <= 8, peekIs("}") else {
                        throw error("malformed '\\x{...}' escape: expected 1 to 8 hex digits and '}'", at: start)
                    }
                    position += 1
                    return .scalar(try validScalar(value, escapeStart: start))
                }
                return .scalar(try readHex(exactly: 2, escapeStart: start))
            case 0x30: // 0: octal
                var value: UInt32 = 0
                var count = 0
                while count < 3, let d = peek(), d >= 0x30, d <= 0x37 {
                    value = value * 8 + (d - 0x30)
                    position += 1
                    count += 1
                }
                return .scalar(value)
            case 0x31...0x39:
                throw error("backreferences are not supported \(unsupported)", at: start)
            case 0x6B, 0x67: // k g
                throw error("backreferences are not supported \(unsupported)", at: start)
            case 0x63: // c
                guard let c = peek(), c >= 0x40, c < 0x80 else {
                    throw error("'\\c' must be followed by an ASCII control letter", at: start)
                }
                position += 1
                let upper = (c >= 0x61 && c <= 0x7A) ? c - 0x20 : c
                return .scalar(upper ^ 0x40)
            case 0x64: return .set(.property(.decimal, negated: false)) // d
            case 0x44: return .set(.property(.decimal, negated: true)) // D
            case 0x77: return .set(.property(.word, negated: false)) // w
            case 0x57: return .set(.property(.word, negated: true)) // W
            case 0x73: return .set(.property(.whitespace, negated: false)) // s
            case 0x53: return .set(.property(.whitespace, negated: true)) // S
            case 0x68: return .set(.property(.blank, negated: false)) // h
            case 0x48: return .set(.property(.blank, negated: true)) // H
            case 0x76: return .set(.property(.verticalSpace, negated: false)) // v
            case 0x56: return .set(.property(.verticalSpace, negated: true)) // V
            case 0x70, 0x50: // p P
                return .set(try parseProperty(negated: v == 0x50, escapeStart: start))
            case 0x62: // b
                if inClass { return .scalar(0x08) }
                return .assertion(.wordBoundary)
            case 0x42: return try assertion(.notWordBoundary) // B
            case 0x41, 0x47: return try assertion(.startOfText) // A G
            case 0x7A: return try assertion(.endOfText) // z
            case 0x5A: return try assertion(.endOfTextOrFinalTerminator) // Z
            case 0x52: // R
                if inClass { throw error("'\\R' matches a sequence and cannot appear inside a character class", at: start) }
                return .lineBreak
            case 0x51, 0x45: // Q E
                if inClass { throw error("'\\\(Scalars.show(v))' quoting is not supported inside a character class", at: start) }
                return v == 0x51 ? .quoteStart : .quoteEnd
            case 0x58:
                throw error("grapheme cluster escape '\\X' is not supported", at: start)
            case 0x4E:
                throw error("named character escape '\\N{...}' is not supported; use '\\x{...}'", at: start)
            default:
                if Parser.isNameStart(v) {
                    throw error("unknown escape '\\\(Scalars.show(v))'", at: start)
                }
                return .scalar(v)
            }
        }

        private static func hexValue(_ v: UInt32) -> UInt32? {
            switch v {
            case 0x30...0x39: return v - 0x30
            case 0x41...0x46: return v - 0x41 + 10
            case 0x61...0x66: return v - 0x61 + 10
            default: return nil
            }
        }

        private mutating func readHex(exactly count: Int, escapeStart: Int) throws(LinearRegexError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<count {
                guard let d = peek(), let digit = Parser.hexValue(d) else {
                    throw error("malformed '\\\(Scalars.show(source[escapeStart + 1]))' escape: expected \(count) hex digits", at: escapeStart)
                }
                value = value &* 16 &+ digit
                position += 1
            }
            return try validScalar(value, escapeStart: escapeStart)
        }

        private func validScalar(_ value: UInt32, escapeStart: Int) throws(LinearRegexError) -> UInt32 {
            guard Unicode.Scalar(value) != nil else {
                throw error("'\(text(escapeStart..<position))' is not a valid Unicode scalar value", at: escapeStart)
            }
            return value
        }

        private mutating func parseProperty(negated: Bool, escapeStart: Int) throws(LinearRegexError) -> SetExpr {
            var name: String
            if peekIs("{") {
                position += 1
                let nameStart = position
                while let v = peek(), v != 0x7D { position += 1 }
                guard peekIs("}") else {
                    throw error("missing '}' to close the property name", at: escapeStart)
                }
                name = text(nameStart..<position)
                position += 1
            } else {
                guard let v = peek(), Parser.isNameStart(v) else {
                    throw error("'\\p' must be followed by a property name like {L} or {Lu}", at: escapeStart)
                }
                name = text(position..<(position + 1))
                position += 1
            }
            var isNegated = negated
            if name.hasPrefix("^") {
                isNegated.toggle()
                name.removeFirst()
            }
            guard let property = Property.named(name) else {
                throw error("unknown Unicode property '\(text(escapeStart..<position))'", at: escapeStart)
            }
            return .property(property, negated: isNegated)
        }

        // MARK: Classes

        /// If a POSIX class `[:name:]` or `[:^name:]` starts at the cursor, consumes and returns it.
        private mutating func parsePOSIXClass() throws(LinearRegexError) -> SetExpr? {
            guard peekIs("["), peekIs(":", 1) else { return nil }
            var index = position + 2
            while index < source.count, source[index] != 0x3A, source[index] != 0x5D, index - position < 40 {
                index += 1
            }
            guard index + 1 < source.count, source[index] == 0x3A, source[index + 1] == 0x5D else { return nil }
            var name = text((position + 2)..<index)
            var negated = false
            if name.hasPrefix("^") {
                negated = true
                name.removeFirst()
            }
            guard !name.isEmpty, let property = Property.named(name) else {
                throw error("unknown POSIX class '\(text(position..<(index + 2)))'", at: position)
            }
            position = index + 2
            return .property(property, negated: negated)
        }

        /// Canonical form of a single class member; nil when it vanishes (a mark under diacritic folding).
        private func canonicalMember(_ v: UInt32) -> UInt32? {
            guard v >= 0x80 else { return v }
            let normalized = Scalars.canonical([v], diacriticInsensitive: diacriticInsensitive)
            switch normalized.count {
            case 0: return nil
            case 1: return normalized[0]
            default: return v
            }
        }

        /// Parses `[...]` starting at the cursor; returns the set and whether it is negated.
        private mutating func parseClass(depth: Int) throws(LinearRegexError) -> (SetExpr, Bool) {
            let start = position
            if depth >= LinearRegex.maxNesting {
                throw error("pattern too complex: character classes nested more than \(LinearRegex.maxNesting) deep", at: start)
            }
            if let posix = try parsePOSIXClass() {
                return (posix, false)
            }
            position += 1
            var negated = false
            if peekIs("^") {
                negated = true
                position += 1
            }
            enum Operator { case intersection, subtraction }
            var result: SetExpr?
            var pending: Operator?
            var ranges: [ClosedRange<UInt32>] = []
            var members: [SetExpr] = []
            var first = true
            var leadingBracket = false

            func operand() -> SetExpr {
                var parts = members
                if !ranges.isEmpty { parts.insert(.ranges(SetExpr.merged(ranges)), at: 0) }
                ranges.removeAll()
                members.removeAll()
                if parts.count == 1 { return parts[0] }
                if parts.isEmpty { return .ranges([]) }
                return .union(parts)
            }
            func combine(_ next: SetExpr) {
                if let current = result, let op = pending {
                    switch op {
                    case .intersection: result = .intersection(current, next)
                    case .subtraction: result = .subtraction(current, next)
                    }
                } else {
                    result = next
                }
            }

            while true {
                guard let v = peek() else {
                    if leadingBracket {
                        throw error("empty character class '[]'", at: start)
                    }
                    throw error("missing ']' to close the character class opened here", at: start)
                }
                if v == 0x5D && !first { // ]
                    position += 1
                    break
                }
                defer { first = false }
                if v == 0x5D {
                    leadingBracket = true
                    position += 1
                    ranges.append(0x5D...0x5D)
                    continue
                }
                if v == 0x26 && peekIs("&", 1) { // &&
                    combine(operand())
                    pending = .intersection
                    position += 2
                    continue
                }
                if v == 0x2D && peekIs("-", 1) && (peekIs("[", 2) || peekIs("\\", 2)) && !first { // --
                    combine(operand())
                    pending = .subtraction
                    position += 2
                    continue
                }
                if v == 0x5B { // [
                    let (nested, nestedNegated) = try parseClass(depth: depth + 1)
                    members.append(nestedNegated ? .complement(nested) : nested)
                    continue
                }
                let itemStart = position
                guard let low = try parseClassScalar(allowSet: true, into: &members) else { continue }
                // A range `low-high`, unless '-' is the last thing before ']'.
                if peekIs("-"), let after = peek(1), after != 0x5D, !(after == 0x2D && (peekIs("[", 2) || peekIs("\\", 2))) {
                    position += 1
                    if after == 0x5B {
                        throw error("invalid range in character class: a range must end with a single character", at: itemStart)
                    }
                    var ignored: [SetExpr] = []
                    guard let high = try parseClassScalar(allowSet: false, into: &ignored) else {
                        throw error("invalid range in character class: a range must end with a single character", at: itemStart)
                    }
                    guard low <= high else {
                        throw error("range '\(text(itemStart..<position))' is out of order in character class", at: itemStart)
                    }
                    ranges.append(low...high)
                } else if let member = canonicalMember(low) {
                    ranges.append(member...member)
                }
            }
            combine(operand())
            return (result ?? .ranges([]), negated)
        }

        /// Parses one class member. Returns its scalar, or nil after appending a set (shorthand/property) to `members`.
        private mutating func parseClassScalar(allowSet: Bool, into members: inout [SetExpr]) throws(LinearRegexError) -> UInt32? {
            let start = position
            let v = source[position]
            guard v == 0x5C else {
                position += 1
                return v
            }
            switch try parseEscape(inClass: true) {
            case .scalar(let scalar):
                return scalar
            case .set(let expr):
                guard allowSet else {
                    throw error("invalid range in character class: '\(text(start..<position))' is a set, not a single character", at: start)
                }
                members.append(expr)
                if peekIs("-"), let after = peek(1), after != 0x5D, after != 0x2D {
                    throw error("invalid range in character class: '\(text(start..<position))' is a set, not a single character", at: start)
                }
                return nil
            case .assertion, .lineBreak, .quoteStart, .quoteEnd:
                throw error("'\(text(start..<position))' is not allowed inside a character class", at: start)
            }
        }
    }
}
