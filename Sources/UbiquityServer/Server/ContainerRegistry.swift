import Synchronization
public import UbiquityIndex
public import UbiquityProtocol

/// The containers the daemon serves right now, and their held root directories. Replaced whole
/// on SIGHUP; read by every session.
public final class ContainerRegistry: Sendable {
    private struct State {
        var containers: [ResolvedContainer]
        /// Each container's root, held open (``HeldRoot``); missing while it cannot be opened.
        var roots: [ContainerID: HeldRoot] = [:]
    }

    private let state: Mutex<State>

    public init(_ containers: [ResolvedContainer]) {
        state = Mutex(State(containers: containers, roots: Self.hold(containers)))
    }

    /// In configuration order: the first is the default container of `container.url`.
    public var all: [ResolvedContainer] { state.withLock { $0.containers } }

    /// The containers after a reload, their roots opened afresh: a root deleted and made again,
    /// or moved away and replaced, since the last reload is the directory at its path now.
    public func replace(with containers: [ResolvedContainer]) {
        let roots = Self.hold(containers)
        state.withLock { $0 = State(containers: containers, roots: roots) }
    }

    public func setAvailable(_ id: ContainerID, _ available: Bool) {
        state.withLock { state in
            for i in state.containers.indices where state.containers[i].descriptor.id == id { state.containers[i].available = available }
        }
    }

    /// The held root of `container`; opened now (once) if it could not be at registration, nil
    /// while it still cannot.
    func heldRoot(of container: ResolvedContainer) -> HeldRoot? {
        let id = container.descriptor.id
        if let held = state.withLock({ $0.roots[id] }), held.path == container.descriptor.root { return held }
        guard let opened = HeldRoot.open(container.descriptor.root) else { return nil }
        return state.withLock { state in
            if let raced = state.roots[id], raced.path == container.descriptor.root { return raced }
            state.roots[id] = opened
            return opened
        }
    }

    /// Opens the roots of `containers` (those that cannot be opened are left out).
    private static func hold(_ containers: [ResolvedContainer]) -> [ContainerID: HeldRoot] {
        var roots: [ContainerID: HeldRoot] = [:]
        for container in containers {
            if let opened = HeldRoot.open(container.descriptor.root) { roots[container.descriptor.id] = opened }
        }
        return roots
    }

    /// Resolves a client-supplied id for a peer: `container.invalid`, `container.unknown` or
    /// `container.forbidden` — the latter says nothing about the container's contents.
    public func container(named raw: String, for peer: PeerCredentials) throws(ProtocolError) -> ResolvedContainer {
        let id: ContainerID
        do { id = try ContainerID(raw) } catch {
            throw ProtocolError(.containerInvalid, error.description, details: ["container": .string(raw)])
        }
        guard let container = all.first(where: { $0.descriptor.id == id }) else {
            // Suggest only what this peer may read: a hint must not reveal other users' containers.
            let readable = all.filter { Authorization.mayRead($0, peer: peer) }
            let hint = NameSuggestionHint.text(for: raw, in: readable.map(\.descriptor.id.rawValue))
            throw ProtocolError(.init(EngineError.Code.unknownContainer), "no container '\(raw)' is served here\(hint)",
                                details: ["container": .string(raw)])
        }
        guard Authorization.mayRead(container, peer: peer) else {
            throw ProtocolError(.containerForbidden,
                "uid \(peer.uid) may not read container '\(raw)': only its owner, root and members of its group may",
                details: ["container": .string(raw)])
        }
        return container
    }

    /// The first of `ids` that is still served but that `peer` may no longer read (a reload
    /// changed its owner or group); nil while every one is readable. A container no longer
    /// served is not "forbidden": its queries hear `container.unavailable` instead.
    public func revoked(_ ids: [ContainerID], for peer: PeerCredentials) -> ContainerID? {
        let current = all
        return ids.first { id in
            guard let container = current.first(where: { $0.descriptor.id == id }) else { return false }
            return !Authorization.mayRead(container, peer: peer)
        }
    }

    /// The containers a query names, or every readable one when it names none.
    public func containers(named raws: [String], for peer: PeerCredentials) throws(ProtocolError) -> [ResolvedContainer] {
        if raws.isEmpty {
            let readable = all.filter { Authorization.mayRead($0, peer: peer) }
            guard !readable.isEmpty else {
                throw ProtocolError(.containerForbidden, "uid \(peer.uid) may read none of the containers served here")
            }
            return readable
        }
        var out: [ResolvedContainer] = []
        for raw in raws {
            let container = try container(named: raw, for: peer)
            if !out.contains(container) { out.append(container) }
        }
        return out
    }

    /// `URLForUbiquityContainerIdentifier(nil)`: the first configured container the peer may read.
    public func defaultContainer(for peer: PeerCredentials) throws(ProtocolError) -> ResolvedContainer {
        guard let first = all.first(where: { Authorization.mayRead($0, peer: peer) }) else {
            throw ProtocolError(.containerForbidden, "uid \(peer.uid) may read none of the containers served here")
        }
        return first
    }
}

