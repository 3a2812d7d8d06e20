import UbiquityIndex
import Glibc

/// What ``DaemonConfiguration/resolveContainers()`` found on disk.
public struct ContainerResolution: Sendable, Equatable {
    /// Declared containers in file order, then discovered ones by id; index 0 is the default container.
    public var containers: [ResolvedContainer]
    /// Sentences for the journal and `--check-config`: things an administrator should fix.
    public var problems: [String]
    /// Sentences about what was deliberately skipped (a directory in a root that is not a container id).
    public var notes: [String]

    public init(containers: [ResolvedContainer] = [], problems: [String] = [], notes: [String] = []) {
        self.containers = containers
        self.problems = problems
        self.notes = notes
    }
}
