import CSystemd
import Glibc
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization
import UbiquityIndex
import UbiquityProtocol
import UbiquityWatch
import UnixSignals

struct ServerService: Service {
    let server: SocketServer
    func run() async throws { try await server.run() }
}
