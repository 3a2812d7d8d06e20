public import FoundationEssentials
public import UbiquityProtocol

/// One-call helpers that open a connection, ask one thing and close it, like
/// `FileManager.url(forUbiquityContainerIdentifier:)`.
///
/// ```swift
/// let grocery = try await UbiquityContainer.url(for: "com.example.grocery")
/// let documents = grocery.appendingPathComponent("Documents")   // created by the daemon
/// let first = try await UbiquityContainer.url(for: nil)          // the first container you may read
/// ```
public enum UbiquityContainer {
    /// The container's directory (`URLForUbiquityContainerIdentifier`); the daemon creates its
    /// `Documents/` on demand.
    ///
    /// - Parameters:
    ///   - container: A container id, or nil for the first container this user may read.
    ///   - socketPath: The daemon's socket (default: ``UbiquityConnection/defaultSocketPath``).
    /// - Throws: ``ProtocolError`` `container.unknown` / `container.forbidden`, or a connection error.
    public static func url(for container: String?,
                           socketPath: String = UbiquityConnection.defaultSocketPath) async throws -> URL {
        let result = try await UbiquityConnection.withConnection(to: socketPath) { try await $0.containerURL(container) }
        return URL(fileURLWithPath: result.path, isDirectory: true)
    }

    /// The containers this user may read, with item counts and availability.
    public static func containers(socketPath: String = UbiquityConnection.defaultSocketPath) async throws -> [ContainerInfo] {
        try await UbiquityConnection.withConnection(to: socketPath) { try await $0.containers() }
    }

    /// The daemon's status (see ``StatusResult``).
    public static func status(socketPath: String = UbiquityConnection.defaultSocketPath) async throws -> StatusResult {
        try await UbiquityConnection.withConnection(to: socketPath) { try await $0.status() }
    }
}
