import Testing
import UbiquityJSON
@testable import UbiquityProtocol

/// The wire format without a socket: line encoding, request parsing and every message's round trip.
@Suite("Protocol framing and messages")
struct FramingAndMessageTests {
    @Test("Lines are compact, key-sorted, slash-preserving, and escape what JSON requires")
    func encoding() throws {
        let value = JSONValue.object(["b": .string("a/b \"q\" \\ \n\t\u{01}\u{2028}é😀"), "a": .array([.integer(-3), .double(0.5), .bool(true), .null])])
        let line = JSONLine.encode(value)
        #expect(line == #"{"a":[-3,0.5,true,null],"b":"a/b \"q\" \\ \n\t\u0001\u2028é😀"}"#)
        #expect(!line.contains("\n"))
        #expect(try JSONLine.decode(Array(line.utf8)) == value)
        #expect(JSONLine.encodeLine(.null) == Array("null\n".utf8))
        #expect(JSONLine.encode(.double(.nan)) == "null")
    }

    @Test("Any string survives encode → decode, whatever needs escaping and wherever it sits")
    func stringRoundTrip() throws {
        let pieces = ["a", "/", "\"", "\\", "\n", "\r", "\t", "\u{00}", "\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}",
                      "\u{2027}", "é", "€", "😀", "חלב", "\u{E2}"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let length = Int.random(in: 0...12, using: &generator)
            let text = (0..<length).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let line = JSONLine.encode(.object(["k": .string(text), "m": .array([.string(text)])]))
            #expect(!line.contains("\n"), "an encoded line must never hold a raw newline: \(line)")
            #expect(try JSONLine.decode(Array(line.utf8)) == .object(["k": .string(text), "m": .array([.string(text)])]),
                    "round trip of \(text.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }

    @Test("Decoding names invalid UTF-8 by byte offset, and refuses empty and non-JSON lines")
    func decodingErrors() {
        for (bytes, fragment) in [
            (Array(#"{"a":"x"#.utf8) + [0xFF] + Array(#""}"#.utf8), "offset 7"),
            ([0xC3], "offset 0"),
            (Array("   ".utf8), "empty"),
            (Array("{nope}".utf8), "not valid JSON"),
        ] {
            do {
                _ = try JSONLine.decode(bytes)
                Issue.record("decoded \(bytes)")
            } catch {
                #expect(error.code == .requestMalformed)
                #expect(error.message.contains(fragment), "\(error.message)")
            }
        }
    }

    @Test("All scopes is the default and is not written")
    func defaultScopesAreLeftOut() {
        var parameters = QueryParameters(predicate: "name LIKE %@", scopes: [.documents])
        #expect(parameters.fields["scope"] == .array([.string("documents")]))
        parameters.scopes = [.data, .documents]
        #expect(!(parameters.fields.keys.contains("scope")), "all scopes is the default and is not written")
    }

    @Test("Request errors keep the id when it was readable")
    func partialRequests() {
        func failure(_ text: String) -> PartialRequestError? {
            do { _ = try Request(json: try JSONLine.decode(Array(text.utf8))); return nil } catch let error as PartialRequestError { return error } catch { return nil }
        }
        #expect(failure(#"{"op":"status"}"#)?.id == nil)
        #expect(failure(#"{"id":true,"op":"status"}"#)?.id == nil)
        #expect(failure(#"{"id":4,"op":"nope"}"#)?.id == .number(4))
        #expect(failure(#"{"id":"x","op":"query.start"}"#)?.error.details["field"] == .string("predicate"))
        #expect(failure(#"{"id":1,"op":"query.start","predicate":"a","scope":[]}"#)?.error.message.contains("empty") == true)
    }

    @Test("Every event and response survives encode → decode")
    func serverMessagesRoundTrip() throws {
        let item = WireItem(path: "/c/Documents/Item_1", oldPath: "/c/Documents/Item_0", attributes: ["kMDItemFSName": .string("Item_1")])
        let events: [ServerEvent] = [
            .gatheringStarted(query: 1), .gatheringProgress(query: 1, count: 2), .gatheringFinished(query: 1, answer: .results([item]), clock: "c1-00000000000000ff-3"),
            .gatheringFinished(query: 1, answer: .results([item], fresh: FreshAnswer(code: "clock.otherEpoch", reason: "restarted")),
                               clock: "c1-00000000000000ff-3"),
            .gatheringFinished(query: 1, answer: .changes(since: "c1-00000000000000ff-1", added: [item], changed: [], removed: [item],
                                                          count: 4), clock: "c1-00000000000000ff-3"),
            .gatheringFinished(query: 1, answer: .results([item]), clock: "c1-00000000000000ff-3", verified: false),
            .gatheringFinished(query: 1, answer: .changes(since: "c1-00000000000000ff-1", added: [], changed: [item], removed: [],
                                                          count: 1), verified: false),
            .verified(query: 1),
            .update(query: 1, added: [item], changed: [], removed: [item]),
            .update(query: 1, added: [], changed: [item], removed: [], clock: "c1-00000000000000ff-4"), .resync(query: 1, container: "c.d", reason: "overflow", changes: 3),
            .reset(query: 1, results: []), .reset(query: 1, results: [item], clock: "c1-00000000000000ff-5"), .unwatched(query: 1, container: "c.d", path: "a/b", reason: "budget"),
            .containerUnavailable(query: 1, container: "c.d", reason: "gone"), .containerAvailable(query: 1, container: "c.d"),
            .stopped(query: 1, reason: "done"), .shuttingDown(reason: "bye"),
        ]
        for event in events {
            let decoded = try ServerMessage(json: try JSONLine.decode(Array(JSONLine.encode(event.json).utf8)))
            #expect(decoded == .event(event))
        }
        let error = ProtocolError(.containerForbidden, "no", details: ["container": .string("c.d")])
        for response in [Response(id: .number(1), result: .object(["query": .integer(2)])), Response(id: nil, error: error)] {
            #expect(try ServerMessage(json: response.json) == .response(response))
        }
        let hello = HelloResult(version: "1.0", limits: ServerLimits(), peerUID: 1000, peerGID: 100)
        #expect(try HelloResult(json: hello.json) == hello)
        let status = StatusResult(version: "1", pid: 2, uptimeSeconds: 3, socket: "/s", containers: [
            ContainerInfo(id: "c.d", path: "/c", available: true, items: 4, ownerUID: 5, groupGID: 6, packageTypes: ["gro": "t"])],
            items: 4, watchesUsed: 1, watchBudget: 2, kernelWatchLimit: 3, unwatched: [.init(container: "c.d", path: "x", reason: "y")],
            overflows: 0, resyncs: 0, connections: 1, liveQueries: 1, degraded: ["z"])
        #expect(try StatusResult(json: status.json) == status)
        #expect(ProtocolError.Code(rawValue: "future.code").rawValue == "future.code")
    }
}
