import UbiquityProtocol

extension ContainersList: AnsweredOperation {
    func answer(in session: Session) async -> Result {
        let counts = await session.context.itemCounts()
        let visible = session.context.registry.all.filter { Authorization.mayRead($0, peer: session.peer) }
        return Result(containers: visible.map { Session.info($0, items: counts[$0.descriptor.id] ?? 0) })
    }
}
