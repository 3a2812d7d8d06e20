import NIOCore
import UbiquityProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Cuts the daemon's stream into lines (`\n`; a `\r` before it is dropped, as NIO's
/// `LineBasedFrameDecoder` does), and checks the result items of a long line while the rest of
/// it is still arriving (``ItemListScan``): a 100k-item answer is a line of 20–30 MB that the
/// daemon sends over tens of milliseconds, time in which the reader would otherwise only wait.
///
/// The newline is searched for with `memchr`, in the bytes not searched yet: NIO's decoder looks
/// at one byte at a time, which cost `ubiq query` about 10 ms of CPU per 20 MB.
struct ServerLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ServerLine

    /// Lines this long and longer have their items checked as they arrive; shorter ones are read
    /// whole quickly enough.
    static let scannedFrom = 1 << 16

    /// How many bytes of the current line have been searched for its end.
    private var searched = 0
    private var itemScan: ItemListScan?

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let line = nextLine(&buffer) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while let line = nextLine(&buffer) {
            context.fireChannelRead(wrapInboundOut(line))
        }
        if buffer.readableBytes > 0 {
            let how = seenEOF ? "ubiquityd closed the connection" : "the connection stopped being read"
            throw UbiquityKitError.disconnected(reason: "\(how) in the middle of a line (\(buffer.readableBytes) bytes without their end)")
        }
        return .needMoreData
    }

    /// The next whole line, taken out of `buffer`; nil (and the items of a long line checked so
    /// far) when its end has not arrived.
    private mutating func nextLine(_ buffer: inout ByteBuffer) -> ServerLine? {
        let found: Int? = buffer.withUnsafeReadableBytes { raw in
            guard raw.count > searched, let base = raw.baseAddress else { return nil }
            guard let at = memchr(base + searched, Int32(UInt8(ascii: "\n")), raw.count - searched) else {
                searched = raw.count
                if raw.count >= ServerLineDecoder.scannedFrom {
                    if itemScan == nil { itemScan = ItemListScan() }
                    itemScan?.advance(over: raw.assumingMemoryBound(to: UInt8.self))
                }
                return nil
            }
            return UnsafeRawPointer(at) - base
        }
        guard let end = found else { return nil }
        let dropsReturn = end > 0 && buffer.getInteger(at: buffer.readerIndex + end - 1, as: UInt8.self) == UInt8(ascii: "\r")
        let length = dropsReturn ? end - 1 : end
        if itemScan != nil {
            // The items of the last read too, here: the list's arrays then pass to the message as
            // they are, never appended to (a copy of both) while it is read.
            buffer.withUnsafeReadableBytes { raw in
                itemScan?.advance(over: UnsafeBufferPointer(rebasing: raw.assumingMemoryBound(to: UInt8.self)[..<length]))
            }
        }
        // Never nil: `end` bytes are readable.
        let bytes = buffer.readSlice(length: length) ?? ByteBuffer()
        buffer.moveReaderIndex(forwardBy: dropsReturn ? 2 : 1)
        let line = ServerLine(bytes: bytes, itemScan: itemScan)
        searched = 0
        itemScan = nil
        return line
    }
}
