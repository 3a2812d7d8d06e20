// The syntax tree the parser builds and the compiler turns into a Program.

extension LinearRegex {
    enum Assertion: Sendable {
        case startOfText, endOfText, endOfTextOrFinalTerminator, startOfLine, endOfLine
        case wordBoundary, notWordBoundary
    }

    struct Node: Sendable {
        indirect enum Kind: Sendable {
            case empty
            case literal(UInt32, caseInsensitive: Bool)
            case any(dotAll: Bool)
            case set(Int, caseInsensitive: Bool)
            case assertion(Assertion)
            case concat([Node])
            case alternation([Node])
            case repetition(Node, min: Int, max: Int?)
        }

        let kind: Kind
        /// Number of instructions this node compiles to.
        let size: Int

        static let empty = Node(kind: .empty, size: 0)

        static func leaf(_ kind: Kind) -> Node { Node(kind: kind, size: 1) }

        static func concat(_ nodes: [Node]) -> Node {
            switch nodes.count {
            case 0: return .empty
            case 1: return nodes[0]
            default: return Node(kind: .concat(nodes), size: nodes.reduce(0) { $0 + $1.size })
            }
        }

        static func alternation(_ nodes: [Node]) -> Node {
            if nodes.count == 1 { return nodes[0] }
            return Node(kind: .alternation(nodes), size: nodes.reduce(0) { $0 + $1.size } + 2 * (nodes.count - 1))
        }

        static func repetition(_ node: Node, min: Int, max: Int?) -> Node {
            let size: Int
            if let max {
                size = min * node.size + (max - min) * (node.size + 1)
            } else {
                size = min == 0 ? node.size + 2 : min * node.size + 1
            }
            return Node(kind: .repetition(node, min: min, max: max), size: size)
        }

        var isAssertion: Bool {
            if case .assertion = kind { return true }
            return false
        }
    }
}
