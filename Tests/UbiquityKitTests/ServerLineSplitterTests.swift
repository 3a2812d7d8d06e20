import NIOCore
import NIOEmbedded
import Testing
@testable import UbiquityKit
@testable import UbiquityProtocol
import UbiquityTesting

/// The client's reading of the daemon's stream (``ServerLineSplitter``, ``ServerLineReader``):
/// lines cut where their newline is, whatever the reads they arrive in; a long line's first list
/// handed on read by read, and the line read with those items to the same message as read whole.
struct ServerLineSplitterTests {
    /// What came out of a splitter: whole lines, their items that arrived apart put beside them
    /// as the Router puts them.
    struct Received {
        var lines: [[UInt8]] = []
        var messages: [Result<ServerMessage, ProtocolError>] = []
        /// How many items arrived apart, per line.
        var arrived: [Int] = []
        /// The heads the arriving items came with, in order.
        var heads: [ListHead] = []
        private var held: [EncodedItems] = []

        mutating func take(_ inputs: [ServerInput]) {
            for input in inputs {
                switch input {
                case .arriving(let items):
                    held += items.pieces
                    heads.append(items.head)
                case .line(let line):
                    let listed = line.listedCount > 0 ? ListedItems(listStart: line.listStart, pieces: held, count: line.listedCount) : nil
                    lines.append(Array(line.bytes.readableBytesView))
                    messages.append(Router.message(line.bytes, listed: listed))
                    arrived.append(held.reduce(0) { $0 + $1.count })
                    held = []
                }
            }
        }
    }

    /// `stream` split in reads of random sizes.
    static func split(_ stream: [UInt8], maxLineBytes: Int = UbiquityConnection.defaultMaxLineBytes,
                      _ random: inout SplitMix64) throws -> Received {
        var splitter = ServerLineSplitter(maxLineBytes: maxLineBytes)
        var received = Received()
        var sent = 0
        while sent < stream.count {
            let size = min(stream.count - sent, random.pick([1, 5, 100, 4_096, 65_536, 300_000]))
            var inputs: [ServerInput] = []
            try splitter.split(ByteBuffer(bytes: stream[sent..<(sent + size)]), into: &inputs)
            received.take(inputs)
            sent += size
        }
        #expect(splitter.pendingBytes == 0)
        return received
    }

    static func whole(_ line: [UInt8]) -> Result<ServerMessage, ProtocolError> {
        Router.message(ByteBuffer(bytes: line))
    }

    @Test("Lines of every length, in reads of every size: the same lines and messages; long answers' items arrive apart")
    func linesInReads() throws {
        var random = SplitMix64(seed: 20_261_124)
        var listedLong = 0
        for round in 0..<20 {
            let lines: [[UInt8]] = (0..<random.int(1...6)).map { _ in
                random.chance(0.3) ? LentLineTests.line(items: random.int(0...6_000))
                    : Array(#"{"id":\#(random.int(0...99)),"result":{}}"#.utf8)
            }
            let stream = lines.flatMap { $0 + [UInt8(ascii: "\n")] }
            let received = try Self.split(stream, &random)
            #expect(received.lines.count == lines.count, "round \(round)")
            for (index, bytes) in lines.enumerated() where index < received.messages.count {
                let message = try received.messages[index].get()
                #expect(message == (try Self.whole(bytes).get()), "round \(round)")
                let arrived = received.arrived[index]
                if bytes.count < ServerLineSplitter.listedFrom {
                    #expect(arrived == 0 && received.lines[index] == bytes, "round \(round)")
                } else if bytes.count >= ServerLineSplitter.listedFrom + 300_000 {
                    // Longer than 64 KiB and the largest read: its end came after its list was
                    // found, and every item arrived apart.
                    #expect(arrived == LentLineTests.count(bytes), "round \(round): \(arrived) of \(LentLineTests.count(bytes))")
                    #expect(received.lines[index].count < 70_000, "round \(round): the line without its items")
                    listedLong += 1
                }
            }
        }
        #expect(listedLong > 3, "\(listedLong) long lines")
    }

    @Test("Long lines the scan gives up on or never starts on, and mutated ones, in random reads: the same message or error as read whole")
    func oddLongLines() throws {
        var random = SplitMix64(seed: 20_261_125)
        let plain = (0..<3_000).map { #"{"attributes":{"kMDItemFSSize":\#($0)},"path":"/c/Documents/f\#($0)"}"# }
        var spaced = plain
        spaced[1_000] = #"{ "attributes":{},"path":"/c/x"}"#
        let odd: [[UInt8]] = [
            // A spaced item a third of the way in: the scan ends there; the rest is gathered over many reads.
            Array(#"{"count":3000,"event":"query.reset","query":1,"results":[\#(spaced.joined(separator: ","))]}"#.utf8),
            // An update: the scan takes `added`; the long `changed` and `removed` after it are gathered.
            Array(#"{"added":[\#(plain[0])],"changed":[\#(plain.joined(separator: ","))],"clock":"c","event":"query.update","query":1,"removed":[\#(plain.prefix(500).joined(separator: ","))]}"#.utf8),
            // A response whose results are not a member of the line itself: gathered whole.
            Array(#"{"id":4,"result":{"count":3000,"query":1,"results":[\#(plain.joined(separator: ","))]}}"#.utf8),
        ]
        let alphabet = Array(#"{}[],:"\ 0123456789.eE+-tfnul/abu"#.utf8) + [0x00, 0x0D, 0x80, 0xC3, 0xE2, 0xFF]
        var failures = 0
        for round in 0..<24 {
            var lines = (0..<3).map { _ in odd[random.int(0...2)] }
            if round >= 6 {
                // A few bytes changed anywhere (none to a newline: the lines stay three).
                for index in lines.indices {
                    for _ in 0..<random.int(1...3) { lines[index][random.int(0...(lines[index].count - 1))] = random.pick(alphabet) }
                }
            }
            let received = try Self.split(lines.flatMap { $0 + [UInt8(ascii: "\n")] }, &random)
            #expect(received.messages.count == 3, "round \(round)")
            for (index, line) in lines.enumerated() where index < received.messages.count {
                switch (received.messages[index], Self.whole(line)) {
                case (.success(let a), .success(let b)): #expect(a == b, "round \(round), line \(index)")
                case (.failure(let a), .failure(let b)):
                    failures += 1
                    #expect(a.message == b.message, "round \(round), line \(index)")
                case (let a, let b): Issue.record("round \(round), line \(index): \(a) against \(b)")
                }
            }
        }
        #expect(failures > 10, "\(failures) refused")
    }

    @Test("A line gathered over many reads grows in place")
    func gatheringIsLinear() throws {
        // 16 MiB in 64 KiB reads, a line that is not taken apart. Were the buffer held twice while
        // it grows, each read would copy it whole: 2 GB of copying, which this makes observable
        // as the buffers' identities rather than as time.
        var splitter = ServerLineSplitter(maxLineBytes: 1 << 30)
        var inputs: [ServerInput] = []
        let read = ByteBuffer(repeating: UInt8(ascii: "x"), count: 1 << 16)
        try splitter.split(ByteBuffer(string: #"{"id":1,"result":""#), into: &inputs)
        // How often the buffer was replaced (counted as changes, not as distinct identities: a
        // copy may land where the buffer before the last one was).
        var replaced = 0
        var storage = splitter.gatheredStorage
        for _ in 0..<256 {
            try splitter.split(read, into: &inputs)
            if splitter.gatheredStorage != storage { replaced += 1 }
            storage = splitter.gatheredStorage
        }
        // Grown by doubling: replaced a handful of times, not at every read.
        #expect(replaced < 16, "replaced \(replaced) times in 256 reads")
        try splitter.split(ByteBuffer(string: "\"}\n"), into: &inputs)
        guard case .line(let line)? = inputs.last else {
            Issue.record("no line")
            return
        }
        #expect(line.bytes.readableBytes == (1 << 24) + #"{"id":1,"result":""}"#.utf8.count)
    }

    @Test("A carriage return before the newline is dropped, as NIO's LineBasedFrameDecoder drops it; empty lines are lines")
    func carriageReturn() throws {
        var random = SplitMix64(seed: 7)
        let received = try Self.split(Array("{\"a\":1}\r\n\n{\"b\":2}\n\r\n".utf8), &random)
        #expect(received.lines.map { String(decoding: $0, as: UTF8.self) } == ["{\"a\":1}", "", "{\"b\":2}", ""])
    }

    @Test("A long line ending in a carriage return: the return is not part of it, its items arrive apart")
    func longLineWithCarriageReturn() throws {
        let bytes = LentLineTests.line(items: 2_000)
        var splitter = ServerLineSplitter(maxLineBytes: 1 << 30)
        var inputs: [ServerInput] = []
        try splitter.split(ByteBuffer(bytes: bytes[..<70_000]), into: &inputs)
        try splitter.split(ByteBuffer(bytes: bytes[70_000...] + Array("\r\n".utf8)), into: &inputs)
        var received = Received()
        received.take(inputs)
        #expect(received.arrived == [2_000])
        #expect(try received.messages.first?.get() == (try Self.whole(bytes).get()))
        #expect(received.heads.allSatisfy { $0.key == "results" && $0.gatheredResultsOf == nil })
    }

    @Test("A gathered answer's items arrive with a head naming the query, before the line")
    func gatheredResultsArriveFirst() throws {
        let items = (0..<3_000).map { #"{"attributes":{"kMDItemFSName":"f\#($0)"},"path":"/c/Documents/f\#($0)"}"# }
        let line = Array(#"{"clock":"c1-x-0","count":3000,"event":"query.gatheringFinished","query":7,"results":[\#(items.joined(separator: ","))]}"#.utf8)
        var splitter = ServerLineSplitter(maxLineBytes: 1 << 30)
        var inputs: [ServerInput] = []
        try splitter.split(ByteBuffer(bytes: line[..<100_000]), into: &inputs)
        // Before the line's end: items, none of the line.
        #expect(!inputs.isEmpty && inputs.allSatisfy { if case .arriving(let items) = $0 { items.head.gatheredResultsOf == 7 } else { false } })
        #expect(splitter.pendingBytes == 100_000)
        try splitter.split(ByteBuffer(bytes: line[100_000...] + [UInt8(ascii: "\n")]), into: &inputs)
        guard case .line(let last)? = inputs.last else {
            Issue.record("no line")
            return
        }
        #expect(last.listedCount == 3_000)
        #expect(String(buffer: last.bytes) == #"{"clock":"c1-x-0","count":3000,"event":"query.gatheringFinished","query":7,"results":[]}"#)
    }

    @Test("A line longer than the limit is refused, gathered or taken apart")
    func tooLong() throws {
        for (line, limit) in [(Array(String(repeating: "x", count: 5_000).utf8), 4_096), (LentLineTests.line(items: 3_000), 200_000)] {
            var random = SplitMix64(seed: 3)
            #expect {
                _ = try Self.split(line + [UInt8(ascii: "\n")], maxLineBytes: limit, &random)
            } throws: { error in
                (error as? UbiquityKitError) == .responseTooLarge(limit: limit)
            }
        }
        // At the limit exactly, it is read.
        var random = SplitMix64(seed: 4)
        let line = LentLineTests.line(items: 3_000)
        #expect(try Self.split(line + [UInt8(ascii: "\n")], maxLineBytes: line.count, &random).lines.count == 1)
    }

    @Test("A line that ends inside its list (the daemon never sends one) is cut there, reads to the error it reads to whole, and the next line is intact")
    func lineEndingInsideItsList() throws {
        var bytes = LentLineTests.line(items: 2_000)
        let cut = bytes.count - 40      // inside the last item
        bytes = Array(bytes[..<cut])
        let next = Array(#"{"id":3,"result":{}}"#.utf8)
        let stream = bytes + [UInt8(ascii: "\n")] + next + [UInt8(ascii: "\n")]
        for seed in UInt64(0)..<20 {
            var random = SplitMix64(seed: seed)
            let received = try Self.split(stream, &random)
            #expect(received.lines.count == 2, "seed \(seed)")
            guard received.messages.count == 2 else { continue }
            switch (received.messages[0], Self.whole(bytes)) {
            case (.failure(let a), .failure(let b)): #expect(a.message == b.message, "seed \(seed)")
            case (let a, let b): Issue.record("seed \(seed): \(a) against \(b)")
            }
            #expect(try received.messages[1].get() == (try Self.whole(next).get()), "seed \(seed)")
        }
        // Its newline the last byte that came, and nothing after it (the daemon waits for a
        // request): the line is complete all the same, not held waiting for more.
        for last in 1...20 {
            var splitter = ServerLineSplitter(maxLineBytes: 1 << 30)
            var inputs: [ServerInput] = []
            try splitter.split(ByteBuffer(bytes: bytes[..<(bytes.count - last)]), into: &inputs)
            try splitter.split(ByteBuffer(bytes: bytes[(bytes.count - last)...] + [UInt8(ascii: "\n")]), into: &inputs)
            var received = Received()
            received.take(inputs)
            #expect(received.lines.count == 1 && splitter.pendingBytes == 0, "the last \(last) bytes in a read of their own")
        }
    }

    @Test("A line too long fails the connection, but a line completed before it in the same read is read first")
    func linesBeforeAnErrorAreRead() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ServerLineReader(maxLineBytes: 100))
        #expect(throws: UbiquityKitError.responseTooLarge(limit: 100)) {
            try channel.writeInbound(ByteBuffer(string: "{\"id\":1,\"result\":{}}\n" + String(repeating: "x", count: 200)))
        }
        guard case .line(let line)? = try channel.readInbound(as: ServerInput.self) else {
            Issue.record("the line before the error was dropped")
            return
        }
        #expect(String(buffer: line.bytes) == "{\"id\":1,\"result\":{}}")
        // Nothing more is read once the connection failed.
        try channel.writeInbound(ByteBuffer(string: "{\"id\":2,\"result\":{}}\n"))
        #expect(try channel.readInbound(as: ServerInput.self) == nil)
    }

    @Test("The daemon closing in the middle of a line is an error saying so (the reader on a channel)")
    func lineCutShort() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ServerLineReader(maxLineBytes: 1 << 20))
        try channel.writeInbound(ByteBuffer(string: "{\"a\":1}\n{\"b\":"))
        guard case .line(let line)? = try channel.readInbound(as: ServerInput.self) else {
            Issue.record("no line")
            return
        }
        #expect(String(buffer: line.bytes) == "{\"a\":1}")
        #expect {
            _ = try channel.finish()
        } throws: { error in
            guard case .disconnected(let reason) = error as? UbiquityKitError else { return false }
            return reason.contains("in the middle of a line (5 bytes")
        }
    }
}
