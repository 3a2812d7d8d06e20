// The daemon's command line (flags, --check-config, --version), handing the result to
// UbiquityServer; MultiCall.swift holds the executable's entry point and header.
import ArgumentParser
import CommandLineSupport
import FoundationEssentials
import Glibc
import Logging
import UbiquityProtocol
import UbiquityServer
import UbiquityWatch

struct UbiquityDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ubiquityd",
        abstract: "Watch ubiquity containers and answer live metadata queries on a Unix socket.",
        usage: """
            ubiquityd [--config <FILE> | --root <DIR>] [--socket <PATH>]
                      [--log-level <LEVEL>]
            ubiquityd --check-config [--config <FILE> | --root <DIR>]
            """,
        discussion: """
            Where the configuration comes from (the first that applies wins):
              --root DIR      every sub-directory of DIR named like a container id
              --config FILE   that file (see docs/configuration.md)
              default file    /etc/ubiquity/ubiquityd.toml for root, otherwise
                              $XDG_CONFIG_HOME/ubiquity/ubiquityd.toml, if it exists
              embedded        $XDG_DATA_HOME/ubiquity/containers with the demo container
                              com.example.grocery, created on first run

            --socket PATH overrides the socket; under systemd socket activation the passed socket is used.

            Signals: SIGTERM or SIGINT stop gracefully (subscribers are told, the socket is removed); \
            SIGHUP re-reads the configuration and adds or removes containers without dropping other \
            subscribers.

            Examples:
              ubiquityd                      # per-user, zero configuration
              ubiquityd --root /tmp/containers --socket /tmp/u/ubiquityd.sock
              ubiquityd --check-config --config /etc/ubiquity/ubiquityd.toml

            Exit status: 0 stopped cleanly (or --check-config found no error), 1 invalid configuration, 70 \
            the daemon failed while running, 64 usage error.

            Protocol: docs/protocol.md. Operations: docs/operations.md.
            """,
        version: UbiquityVersion.string)

    @Option(name: .long, help: ArgumentHelp("Read this configuration file.", valueName: "FILE"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Serve every sub-directory of DIR whose name is a container id; no configuration file.", valueName: "DIR"))
    var root: String?

    @Option(name: .long, help: ArgumentHelp("Listen on this socket path.", valueName: "PATH"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("Override log_level: trace, debug, info, notice, warning, error or critical.", valueName: "LEVEL"))
    var logLevel: String?

    @Flag(name: .long, help: "Validate the configuration, print what was understood and the containers found, and exit.")
    var checkConfig = false

    func validate() throws {
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError("--log-level must be one of \(DaemonConfiguration.logLevels.joined(separator: ", ")), found '\(logLevel)'")
        }
    }

    func loadConfiguration() throws(ConfigurationError) -> DaemonConfiguration {
        try DaemonConfiguration.select(configPath: config, root: root, socketPath: socket, uid: geteuid(),
                                       environment: ProcessInfo.processInfo.environment)
    }

    func run() async throws {
        let configuration: DaemonConfiguration
        do { configuration = try loadConfiguration() } catch {
            StandardStream.write("ubiquityd: invalid configuration\n\(error)\n", to: 2)
            throw ExitCode(1)
        }
        if checkConfig {
            let resolution = configuration.resolveContainers(creating: false)
            print(configuration.summary())
            print("")
            print(resolution.summary())
            return
        }

        let level = Logger.Level(rawValue: logLevel ?? configuration.logLevel) ?? .info
        let destination = DaemonLogging.bootstrap(identifier: "ubiquityd", level: level)
        let logger = Logger(label: "ubiquityd")
        logger.info("starting", metadata: ["version": "\(UbiquityVersion.string)", "configuration": "\(configuration.source)",
                                           "log": "\(destination.rawValue)"])

        let resolution = configuration.resolveContainers()
        for problem in resolution.problems { logger.warning("\(problem)") }
        for note in resolution.notes { logger.info("\(note)") }

        let endpoint: SocketServer.Endpoint
        do {
            if let activated = try SocketActivation.listeningSockets(unsetEnvironment: true).first {
                try SocketActivation.checkUnixStreamListener(activated)
                // What clients reach (and status reports) is the socket systemd bound, not the configured path.
                let served = SocketActivation.boundPath(of: activated) ?? configuration.socketPath
                logger.info("socket activation", metadata: ["socket": "\(activated)", "path": "\(served)"])
                if served != configuration.socketPath {
                    logger.notice("serving the socket systemd passed, not the configured one",
                                  metadata: ["socket": "\(served)", "configured": "\(configuration.socketPath)"])
                }
                endpoint = .activated(fd: activated.fileDescriptor, path: served)
            } else {
                endpoint = .path(configuration.socketPath)
            }
        } catch {
            logger.critical("the socket passed by systemd cannot be used", metadata: ["error": "\(error)"])
            throw ExitCode(70)
        }

        // SIGHUP re-reads the same source; a bad file keeps the running containers (Daemon logs it).
        let reload: @Sendable () throws -> [ResolvedContainer] = { [config, root, socket] in
            let next = try DaemonConfiguration.select(configPath: config, root: root, socketPath: socket, uid: geteuid(),
                                                      environment: ProcessInfo.processInfo.environment)
            let resolution = next.resolveContainers()
            for problem in resolution.problems { logger.warning("\(problem)") }
            return resolution.containers
        }
        var settings = DaemonSettings(
            containers: resolution.containers, endpoint: endpoint, limits: configuration.limits,
            watcher: FileWatcher.Configuration(maxWatches: configuration.watchBudget, rescanInterval: configuration.rescanInterval),
            watchdogPeriod: SystemdNotifier.watchdogInterval(), reload: reload)
        settings.history = configuration.history
        if configuration.savesIndex { settings.indexDirectory = settings.stateDirectory }
        settings.indexSaveInterval = configuration.indexSaveInterval
        if let period = settings.watchdogPeriod { settings.statusPeriod = min(settings.statusPeriod, period) }
        settings.keyValueQuota = configuration.keyValueQuota
        settings.storeCompaction = configuration.storeCompaction
        settings.publish = configuration.publish
        settings.sync = configuration.sync
        if isatty(2) == 1 {
            let hint = "ubiquityd \(UbiquityVersion.string): \(resolution.containers.count) container(s), socket \(endpoint.path)\n"
                + "  try, in another terminal:  ubiq status --socket \(endpoint.path)\n"
            StandardStream.write(hint, to: 2)
        }
        do {
            let daemon = try await Daemon.open(settings: settings, logger: logger)
            try await daemon.run()
        } catch {
            logger.critical("ubiquityd failed", metadata: ["error": "\(error)"])
            throw ExitCode(70)
        }
    }
}
