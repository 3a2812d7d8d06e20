import Testing
import UbiquityProtocol
@testable import UbiquityServer

/// The daemon answers every operation of the registry: each has its handler (`Handlers/`), so a
/// forgotten one fails here rather than being refused at run time.
@Suite("Operation handlers")
struct OperationHandlerTests {
    @Test("Every registered operation has a handler, and only hello may come before hello")
    func everyOperationHasAHandler() {
        for operation in Operations.all {
            let handler = operation as? any SessionOperation.Type
            #expect(handler != nil, "\(operation.name) has no handler: add Handlers/\(operation)+Handler.swift")
            #expect(handler?.allowedBeforeHello == (operation == Hello.self), "\(operation.name)")
        }
    }
}
