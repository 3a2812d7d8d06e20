package import NIOCore
import UbiquityProtocol

/// One line from the daemon, without its `\n`, as ``ServerLineSplitter`` cut it. When the
/// items of its first list arrived apart (``ArrivingItems``), `bytes` are the line without them
/// (``ListedItems``): `listed` says where that list is and how many items it had.
package struct ServerLine: Sendable {
    package var bytes: ByteBuffer
    /// Where the list whose items arrived apart is, and how many items it had.
    package var listStart = 0
    package var listedCount = 0
}
