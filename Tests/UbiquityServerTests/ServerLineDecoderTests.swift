import NIOCore
import NIOEmbedded
import Testing
@testable import UbiquityKit
@testable import UbiquityProtocol
import UbiquityTesting

/// The client's line decoder (``ServerLineDecoder``) on an embedded channel: lines cut where
/// their newline is, whatever the pieces they arrive in; a long line's items checked on the way.
struct ServerLineDecoderTests {
    static func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(ServerLineDecoder()))
        return channel
    }

    static func received(_ channel: EmbeddedChannel) throws -> [ServerLine] {
        var lines: [ServerLine] = []
        while let line = try channel.readInbound(as: ServerLine.self) { lines.append(line) }
        return lines
    }

    @Test("Lines of every length, in pieces of every size, come out whole; long answers scanned on the way")
    func linesInPieces() throws {
        var random = SplitMix64(seed: 20_261_124)
        var scannedLong = 0
        for round in 0..<20 {
            let lines: [[UInt8]] = (0..<random.int(1...6)).map { _ in
                random.chance(0.3) ? LentLineTests.line(items: random.int(0...6_000))
                    : Array(#"{"id":\#(random.int(0...99)),"result":{}}"#.utf8)
            }
            let stream = lines.flatMap { $0 + [UInt8(ascii: "\n")] }
            let channel = try Self.channel()
            var sent = 0
            var out: [ServerLine] = []
            while sent < stream.count {
                let piece = min(stream.count - sent, random.pick([1, 5, 100, 4_096, 65_536, 300_000]))
                try channel.writeInbound(ByteBuffer(bytes: stream[sent..<(sent + piece)]))
                sent += piece
                out += try Self.received(channel)
            }
            #expect(out.map { Array($0.bytes.readableBytesView) } == lines, "round \(round)")
            for (line, bytes) in zip(out, lines) {
                // A line that took more than one read past the threshold had its items checked.
                if bytes.count >= 2 * ServerLineDecoder.scannedFrom + 300_000 {
                    #expect((line.itemScan?.starts.count ?? 0) > 0, "round \(round): \(bytes.count) bytes")
                    scannedLong += 1
                }
                if bytes.count < ServerLineDecoder.scannedFrom { #expect(line.itemScan == nil) }
                guard let scan = line.itemScan else { continue }
                // Scanned to the end when the newline came: every item, the list closed.
                #expect(scan.finished && scan.starts.count == LentLineTests.count(bytes), "round \(round)")
                let scanned = try Router.message(line.bytes, itemScan: scan).get()
                #expect(scanned == (try Router.message(line.bytes).get()), "round \(round)")
            }
            _ = try channel.finish()
        }
        #expect(scannedLong > 3, "\(scannedLong) long lines")
    }

    @Test("A carriage return before the newline is dropped, as NIO's LineBasedFrameDecoder drops it; empty lines are lines")
    func carriageReturn() throws {
        let channel = try Self.channel()
        try channel.writeInbound(ByteBuffer(string: "{\"a\":1}\r\n\n{\"b\":2}\n\r\n"))
        #expect(try Self.received(channel).map { String(buffer: $0.bytes) } == ["{\"a\":1}", "", "{\"b\":2}", ""])
        _ = try channel.finish()
    }

    @Test("A long line ending in a carriage return: the return is not part of it, its items are scanned")
    func longLineWithCarriageReturn() throws {
        let bytes = LentLineTests.line(items: 2_000)
        let channel = try Self.channel()
        try channel.writeInbound(ByteBuffer(bytes: bytes[..<70_000]))
        try channel.writeInbound(ByteBuffer(bytes: bytes[70_000...] + Array("\r\n".utf8)))
        let lines = try Self.received(channel)
        #expect(lines.map { Array($0.bytes.readableBytesView) } == [bytes])
        #expect(lines.first?.itemScan?.finished == true && lines.first?.itemScan?.starts.count == 2_000)
        _ = try channel.finish()
    }

    @Test("The daemon closing in the middle of a line is an error saying so")
    func lineCutShort() throws {
        let channel = try Self.channel()
        try channel.writeInbound(ByteBuffer(string: "{\"a\":1}\n{\"b\":"))
        #expect(try Self.received(channel).map { String(buffer: $0.bytes) } == ["{\"a\":1}"])
        #expect {
            _ = try channel.finish()
        } throws: { error in
            guard case .disconnected(let reason) = error as? UbiquityKitError else { return false }
            return reason.contains("in the middle of a line (5 bytes")
        }
    }
}
