extension MetadataPredicate {
    /// Prepares the predicate for fast repeated evaluation: resolves `$time.*` against
    /// `context`, compiles string patterns, and builds lookup sets for `IN`.
    ///
    /// A compiled predicate is immutable and `Sendable`. Recompile when the clock matters
    /// (`$time.today` moves at midnight).
    public func compiled(_ context: EvaluationContext = EvaluationContext()) -> CompiledPredicate {
        CompiledPredicate(root: Compiler(context: context).node(self))
    }

    /// Evaluates once; prefer ``compiled(_:)`` for many items.
    public func evaluate(_ item: some AttributeProvider, context: EvaluationContext = EvaluationContext()) -> Bool {
        compiled(context).evaluate(item)
    }
}
