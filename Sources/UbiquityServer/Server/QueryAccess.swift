import UbiquityIndex

/// Whether a connection may still read what one of its queries covers, asked again before each
/// event the query sends (a reload can change a container's owner or group at any time).
struct QueryAccess: Sendable {
    let registry: ContainerRegistry
    let peer: PeerCredentials
    /// The containers the query was resolved to when it started.
    let containers: [ContainerID]

    /// The first container the peer may no longer read, if any.
    func revoked() -> ContainerID? { registry.revoked(containers, for: peer) }
}
