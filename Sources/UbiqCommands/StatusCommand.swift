import ArgumentParser
import CommandLineSupport
import FoundationEssentials
import UbiquityKit
import UbiquityProtocol

/// `ubiq status`: the daemon's health.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the daemon's health: containers, items, watches, overflows, subscribers.",
        discussion: """
            Example:
              $ ubiq status
              ubiquityd 0.4.0, pid 4242, up 2h 5m
              socket       /run/user/1000/ubiquity/ubiquityd.sock
              items        1204 in 1 container
              watches      37 used, budget 150000, kernel limit 192536
              overflows    0 (resyncs 0)
              subscribers  2 connections, 1 live query
              ...

            With --json, the daemon's status object as is.

            Exit status: 0 success, 3 daemon not running or connection lost.
            """
    )

    @OptionGroup var output: AnswerOptions

    func run() async throws {
        try await output.answer({ try await $0.status() }, lines: { [$0.json] }, text: Self.render)
    }

    static func render(_ s: StatusResult) -> String {
        var rows: [[String]] = [
            ["socket", s.socket],
            ["items", "\(s.items) in " + counted(s.containers.count, "container")],
            ["watches", "\(s.watchesUsed) used, budget \(s.watchBudget)"
                + (s.kernelWatchLimit.map { ", kernel limit \($0)" } ?? "")],
            ["overflows", "\(s.overflows) (resyncs \(s.resyncs))"],
            ["subscribers", counted(s.connections, "connection") + ", " + counted(s.liveQueries, "live query", "live queries")],
        ]
        for (i, c) in s.containers.enumerated() {
            rows.append([i == 0 ? "containers" : "", "\(c.id)  \(counted(c.items, "item"))  "
                + (c.available ? "available" : "UNAVAILABLE") + "  \(c.path)"])
        }
        if s.unwatched.isEmpty { rows.append(["unwatched", "none"]) }
        for (i, u) in s.unwatched.enumerated() {
            rows.append([i == 0 ? "unwatched" : "", "\(u.container): \(u.path) (\(u.reason)), rescanned periodically"])
        }
        if let engine = s.syncEngine {
            let shared = engine.folders.map(\.container).joined(separator: ", ")
            rows.append(["sync engine", "\(engine.engine) at \(engine.address): \(engine.state.rawValue)"
                + (engine.state == .connected ? ", device \(engine.device ?? "?"), shares " + (shared.isEmpty ? "nothing" : shared)
                                              : engine.reason.map { " (\($0))" } ?? "")])
        }
        if s.degraded.isEmpty { rows.append(["degraded", "no"]) }
        for (i, d) in s.degraded.enumerated() { rows.append([i == 0 ? "degraded" : "", d]) }
        let table = rows.map { [$0[0], $0[1]] }
        return "ubiquityd \(s.version), pid \(s.pid), up \(duration(s.uptimeSeconds))\n"
            + Terminal.table(header: ["", ""], rows: table).split(separator: "\n", omittingEmptySubsequences: false)
                .dropFirst().joined(separator: "\n")
    }

    /// `45s`, `3m 12s`, `2h 5m`, `3d 4h`.
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds)
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m \(s % 60)s" }
        if s < 86400 { return "\(s / 3600)h \(s % 3600 / 60)m" }
        return "\(s / 86400)d \(s % 86400 / 3600)h"
    }
}
