import UbiquityProtocol

extension ContainerURL: AnsweredOperation {
    func answer(in session: Session) throws -> ContainerURLResult {
        let context = session.context, peer = session.peer
        let container: ResolvedContainer
        if let raw = self.container { container = try context.registry.container(named: raw, for: peer) }
        else { container = try context.registry.defaultContainer(for: peer) }
        let documents = try session.ensureDocuments(container)
        return ContainerURLResult(container: container.descriptor.id.rawValue, path: container.descriptor.root,
                                  documents: documents)
    }
}
