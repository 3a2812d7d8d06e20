import UbiquityProtocol

/// Items of a long line's first list, handed on as they arrive (``ServerLineSplitter``), before
/// the line's end: one read's worth. The line they belong to follows once its end has come.
package struct ArrivingItems: Sendable {
    /// What the line said before the list: whose answer it is.
    var head: ListHead
    var pieces: [EncodedItems]
}
