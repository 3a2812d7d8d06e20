import Foundation
import Testing
import UbiquityJSON
import UbiquityTesting
@testable import UbiquityServer

/// A live fetch's events, applied to what its subscriber holds, equal a fresh fetch after every
/// save — for a fetch kept up to date row by row (its predicate reads the rows' own columns, its
/// order moves rows around) and one read whole (its predicate reads the items' tags) — over
/// random inserts, renames, quantity changes, deletes, and tags put on and taken off.
@Suite("Live fetches equal a fresh fetch after every change", .serialized, .ownThreads)
struct LiveFetchModelTests {
    static let byRow = #""table":"items","predicate":"quantity >= 2 AND name BEGINSWITH 'i'","sort":["quantity:desc","name"]"#
    static let whole = #""table":"items","predicate":"tags CONTAINS 'mall'","related":["tags"],"sort":"name""#

    @Test("150 random saves on another connection: after each, both live fetches' rows are the fresh fetch's", arguments: [UInt64(7), 11])
    func eventsEqualFreshFetches(seed: UInt64) async throws {
        try await withDaemon { daemon in
            let watcher = try RawClient.greeted(socket: daemon.socket), writer = try RawClient.greeted(socket: daemon.socket)
            let reader = try RawClient.greeted(socket: daemon.socket)
            for client in [watcher, writer, reader] { _ = try StoreDaemonTests.open(client) }
            _ = try writer.result(#"{"id":2,"op":"store.save","store":"grocery","changes":[{"insert":"tags","values":{"name":"mall"}}]}"#)
            let mall = try #require(try writer.result(#"{"id":3,"op":"store.fetch","store":"grocery","table":"tags"}"#)["rows"]?.arrayValue?.first?["id"]?.stringValue)
            var watches: [Int: String] = [:]
            var held: [Int: [String: JSONValue]] = [:]
            for (index, body) in [Self.byRow, Self.whole].enumerated() {
                let watch = try #require(try watcher.result(#"{"id":\#(10 + index),"op":"store.watch","store":"grocery",\#(body)}"#)["watch"]?.intValue)
                watches[watch] = body
            }
            var random = SplitMix64(seed: seed)
            var items: [String] = []
            var next = 0
            for step in 0..<150 {
                let change: String
                switch items.isEmpty ? 0 : random.int(0...5) {
                case 0, 1:
                    next += 1
                    let id = String(format: "%032x", next)
                    items.append(id)
                    change = #"{"insert":"items","id":"\#(id)","values":{"name":"\#(Self.name(&random))","quantity":\#(random.int(0...4))}}"#
                case 2: change = #"{"update":"items","id":"\#(items[random.int(0...(items.count - 1))])","values":{"name":"\#(Self.name(&random))"}}"#
                case 3: change = #"{"update":"items","id":"\#(items[random.int(0...(items.count - 1))])","values":{"quantity":\#(random.int(0...4))}}"#
                case 4:
                    let id = items.remove(at: random.int(0...(items.count - 1)))
                    change = #"{"delete":"items","id":"\#(id)"}"#
                default:
                    let op = random.int(0...1) == 0 ? "relate" : "unrelate"
                    change = #"{"\#(op)":"tags","from":"\#(items[random.int(0...(items.count - 1))])","to":"\#(mall)"}"#
                }
                let saved = try writer.request(#"{"id":\#(100 + step),"op":"store.save","store":"grocery","changes":[\#(change)]}"#).response
                #expect(saved["result"] != nil || saved["error"]?["code"] == .string("store.invalidChange"), "step \(step): \(JSONLine.encode(saved))")
                for (watch, body) in watches {
                    let fresh = try reader.result(#"{"id":\#(1_000 + step),"op":"store.fetch","store":"grocery",\#(body)}"#)
                    let expected = Self.byID(fresh["rows"]?.arrayValue ?? [])
                    // Events come when the store has changed; wait for them until the rows agree.
                    let deadline = Date().addingTimeInterval(10)
                    while held[watch] != expected, Date() < deadline {
                        let event = try watcher.readJSON(within: max(0.01, deadline.timeIntervalSinceNow))
                        guard let of = event["watch"]?.intValue else { continue }
                        Self.apply(event, to: &held[of, default: [:]])
                    }
                    #expect(held[watch] == expected, "step \(step), \(body)")
                }
            }
        }
    }

    static func name(_ random: inout SplitMix64) -> String { ["item", "icing", "bread", "ink", "milk"][random.int(0...4)] + "\(random.int(0...9))" }

    static func byID(_ rows: [JSONValue]) -> [String: JSONValue] {
        var out: [String: JSONValue] = [:]
        for row in rows { if let id = row["id"]?.stringValue { out[id] = row } }
        return out
    }

    /// What a subscriber does with an event: the rows first, then each update's rows.
    static func apply(_ event: JSONValue, to rows: inout [String: JSONValue]) {
        switch event["event"]?.stringValue {
        case "store.gatheringFinished": rows = byID(event["rows"]?.arrayValue ?? [])
        case "store.update":
            for row in event["removed"]?.arrayValue ?? [] { if let id = row["id"]?.stringValue { rows[id] = nil } }
            for row in (event["added"]?.arrayValue ?? []) + (event["changed"]?.arrayValue ?? []) { if let id = row["id"]?.stringValue { rows[id] = row } }
        default: break
        }
    }
}
