import NIOCore
import Testing
@testable import UbiquityKit
@testable import UbiquityProtocol

/// Which lines lend their buffer to the items read from them (`Router.message`): a long line that
/// is most of its buffer, an answer's; every other line is copied when an item keeps it, so that
/// a few items kept long never hold a large buffer.
struct LentLineTests {
    /// A `query.reset` line of `count` items, about 100 bytes each.
    static func line(items count: Int) -> [UInt8] {
        let items = (0..<count).map { #"{"attributes":{"kMDItemFSSize":\#($0)},"path":"/c/Documents/Item_\#($0)_0123456789abcdef0123456789abcdef0123456789"}"# }
        return Array(#"{"count":\#(count),"event":"query.reset","query":1,"results":[\#(items.joined(separator: ","))]}"#.utf8)
    }

    /// How many items a ``line(items:)`` holds.
    static func count(_ line: [UInt8]) -> Int {
        line.withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes)
            guard case .object(let object)? = try? scanner.document(), case .integer(let count)? = object["count"] else { return -1 }
            return Int(count)
        }
    }

    /// Reads `bytes` from a buffer of `capacity` bytes; whether the items keep its storage.
    static func keepsBuffer(_ bytes: [UInt8], capacity: Int) throws -> Bool {
        weak var storage: AnyObject?
        var items: [WireItem] = []
        do {
            var buffer = ByteBufferAllocator().buffer(capacity: capacity)
            buffer.writeBytes(bytes)
            buffer.withUnsafeReadableBytesWithStorageManagement { _, managed in storage = managed.takeUnretainedValue() }
            guard case .event(.reset(_, let results, _)) = try Router.message(buffer).get() else {
                Issue.record("not a reset")
                return false
            }
            items = results
        }
        #expect(items.count > 0 && items.allSatisfy { $0.keptAsBytes })
        for (i, item) in items.enumerated() {
            #expect(item.path == "/c/Documents/Item_\(i)_0123456789abcdef0123456789abcdef0123456789")
            #expect(item.attributes == ["kMDItemFSSize": .integer(Int64(i))])
        }
        return storage != nil
    }

    @Test func aLongLineThatIsMostOfItsBufferIsLent() throws {
        let bytes = Self.line(items: 1_000)
        #expect(bytes.count >= Router.minimumLentLine)
        #expect(try Self.keepsBuffer(bytes, capacity: bytes.count))
        #expect(try Self.keepsBuffer(bytes, capacity: bytes.count * 2))
    }

    @Test func aShortLineOrOneInAMuchLargerBufferIsCopied() throws {
        #expect(try !Self.keepsBuffer(Self.line(items: 3), capacity: 4_096))
        let long = Self.line(items: 1_000)
        #expect(try !Self.keepsBuffer(long, capacity: long.count * 8 + 4_096))
    }
}
