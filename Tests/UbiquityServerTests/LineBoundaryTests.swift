import NIOCore
import NIOEmbedded
import Testing
@testable import UbiquityServer

/// The server's own closing line (at shutdown) and a line written in pieces, on an embedded
/// channel: the closing line never lands inside the other.
struct LineBoundaryTests {
    static func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(LineBoundaryHandler())
        return channel
    }

    /// Everything written so far, as text.
    static func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
        return text
    }

    @Test func aClosingLineWaitsForTheEndOfALineWrittenInPieces() throws {
        let channel = try Self.channel()
        try channel.writeOutbound(ByteBuffer(string: "{\"results\":[1,"))
        let sent = channel.pipeline.triggerUserOutboundEvent(LineBoundaryHandler.ClosingLine(bytes: Array("{\"bye\":1}\n".utf8)))
        try channel.writeOutbound(ByteBuffer(string: "2,3"))
        #expect(try Self.written(channel) == "{\"results\":[1,2,3")
        try channel.writeOutbound(ByteBuffer(string: "]}\n"))
        #expect(try Self.written(channel) == "]}\n{\"bye\":1}\n")
        try sent.wait()
    }

    @Test func betweenLinesTheClosingLineGoesAtOnce() throws {
        let channel = try Self.channel()
        let sent = channel.pipeline.triggerUserOutboundEvent(LineBoundaryHandler.ClosingLine(bytes: Array("{\"bye\":1}\n".utf8)))
        #expect(try Self.written(channel) == "{\"bye\":1}\n")
        try sent.wait()
        try channel.writeOutbound(ByteBuffer(string: "{\"a\":1}\n"))
        let again = channel.pipeline.triggerUserOutboundEvent(LineBoundaryHandler.ClosingLine(bytes: Array("{\"bye\":2}\n".utf8)))
        #expect(try Self.written(channel) == "{\"a\":1}\n{\"bye\":2}\n")
        try again.wait()
    }

    @Test func otherEventsPassThrough() throws {
        let channel = try Self.channel()
        struct Other: Sendable {}
        // The embedded channel's head does not know the event: it fails, as it would without the handler.
        #expect(throws: (any Error).self) { try channel.pipeline.triggerUserOutboundEvent(Other()).wait() }
    }
}
