// ubiquityd: argument parsing and wiring only; the daemon lives in UbiquityServer.
import ArgumentParser
import Foundation
import Logging
import UbiquityIndex
import UbiquityProtocol
import UbiquityServer

@main
struct UbiquityDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ubiquityd",
        abstract: "Watch ubiquity containers and answer live metadata queries on a Unix socket.",
        discussion: """
            With no options, serves the per-user containers under $XDG_DATA_HOME/ubiquity/containers \
            on $XDG_RUNTIME_DIR/ubiquity/ubiquityd.sock. Stop with SIGTERM or Ctrl-C; SIGHUP reloads the containers.
            """,
        version: UbiquityVersion.string)

    @Option(name: .long, help: ArgumentHelp("Serve every sub-directory of DIR whose name is a container id.", valueName: "DIR"))
    var root: String?

    @Option(name: .long, help: ArgumentHelp("Listen on this socket path.", valueName: "PATH"))
    var socket: String?

    func run() async throws {
        var logger = Logger(label: "ubiquityd")
        logger.logLevel = .info
        let uid = geteuid()
        let socketPath = socket ?? WireProtocol.defaultSocketPath(uid: uid, environment: ProcessInfo.processInfo.environment)
        guard let root else { throw ValidationError("--root DIR is required for now") }
        let list: @Sendable () throws -> [ResolvedContainer] = { try TemporaryRootListing.containers(under: root) }
        let settings = DaemonSettings(containers: try list(), endpoint: .path(socketPath), reload: list)
        let daemon = try Daemon(settings: settings, logger: logger, notify: { _ in })
        try await daemon.run()
    }
}

enum TemporaryRootListing {
    static func containers(under root: String) throws -> [ResolvedContainer] {
        let names = try FileManager.default.contentsOfDirectory(atPath: root).sorted()
        return names.compactMap { name -> ResolvedContainer? in
            guard let id = try? ContainerID(name) else { return nil }
            let path = root + "/" + name
            var info = stat()
            guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
            return ResolvedContainer(descriptor: ContainerDescriptor(id: id, root: path, packageTypes: ["gro": "com.example.grocery.package"]),
                                     ownerUID: info.st_uid, groupGID: nil, available: true)
        }
    }
}
