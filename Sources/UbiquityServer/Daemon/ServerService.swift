import CSystemd
import Glibc
public import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
public import UbiquityIndex
public import UbiquityProtocol
public import UbiquityWatch
import UnixSignals

struct ServerService: Service {
    let server: SocketServer
    func run() async throws { try await server.run() }
}
