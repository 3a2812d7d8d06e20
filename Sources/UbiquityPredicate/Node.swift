@usableFromInline
indirect enum Node: Sendable {
    case constant(Bool)
    case not(Node)
    case and([Node])
    case or([Node])
    case test(Test)

    @inlinable
    func evaluate<P: AttributeProvider>(_ item: P) -> Bool {
        switch self {
        case .constant(let b): return b
        case .not(let n): return !n.evaluate(item)
        case .and(let nodes):
            for n in nodes where !n.evaluate(item) { return false }
            return true
        case .or(let nodes):
            for n in nodes where n.evaluate(item) { return true }
            return false
        case .test(let t): return t.evaluate(item)
        }
    }
}
