import NIOCore
import UbiquityProtocol

/// One line from the daemon (without its `\n`), as ``ServerLineDecoder`` cut it, with its first
/// list of result items already checked when the line was long enough to be worth it.
struct ServerLine: Sendable {
    var bytes: ByteBuffer
    var itemScan: ItemListScan?
}
