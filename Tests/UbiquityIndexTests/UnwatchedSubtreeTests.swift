import Testing
@testable import UbiquityIndex

@Suite("Unwatched subtrees")
struct UnwatchedSubtreeTests {
    /// By container first, then by the path's bytes: a decomposed `cafe\u{301}` (`65 CC 81`) before a
    /// precomposed `café` (`C3 A9`), though Swift's strings call them equal, and a deeper path after
    /// the directory it is in.
    @Test func theyAreOrderedByContainerThenByTheirPathsBytes() throws {
        let a = try ContainerID("com.example.a"), b = try ContainerID("com.example.b")
        let expected = [
            UnwatchedSubtree(container: a, path: ["Documents", "cafe\u{301}"], reason: "r"),
            UnwatchedSubtree(container: a, path: ["Documents", "caf\u{e9}"], reason: "r"),
            UnwatchedSubtree(container: a, path: ["Documents", "caf\u{e9}", "x"], reason: "r"),
            UnwatchedSubtree(container: a, path: ["Library"], reason: "r"),
            UnwatchedSubtree(container: b, path: ["Documents"], reason: "r"),
        ]
        #expect(expected.reversed().sorted(by: UnwatchedSubtree.precedes).map(\.path) == expected.map(\.path))
        #expect(expected.reversed().sorted(by: UnwatchedSubtree.precedes).map(\.container) == expected.map(\.container))
        #expect(!UnwatchedSubtree.precedes(expected[0], expected[0]))
    }
}
