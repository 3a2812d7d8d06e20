import Testing
import UbiquityTesting
@testable import UbiquityIndex

/// ``UTF8Check`` accepts exactly what Swift's own validation accepts (what the crawler used before).
@Suite("UTF-8 check")
struct UTF8CheckTests {
    private func swiftAccepts(_ bytes: [UInt8]) -> Bool { String(validating: bytes, as: UTF8.self) != nil }
    private func checkAccepts(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBufferPointer { UTF8Check.isValid($0) } }

    @Test func agreesWithSwiftOnEveryOneAndTwoByteSequence() {
        var disagreements: [[UInt8]] = []
        for a in 0...255 {
            for b in -1...255 {
                let bytes = b < 0 ? [UInt8(a)] : [UInt8(a), UInt8(b)]
                if swiftAccepts(bytes) != checkAccepts(bytes) { disagreements.append(bytes) }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }

    @Test func agreesWithSwiftOnLongerSequencesAfterAnASCIIRun() {
        // Every lead and second byte, the later bytes at the edges of their ranges; then sequences
        // after 0 to 17 ASCII bytes, so they start anywhere in the 8-byte ASCII steps.
        let edges: [UInt8] = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0xA0, 0xBF, 0xC0]
        var disagreements: [[UInt8]] = []
        for lead in 0xC0...0xFF {
            for second in 0...255 {
                for third in edges {
                    for fourth in [nil] + edges.map(Optional.some) {
                        let sequence = [UInt8(lead), UInt8(second), third] + (fourth.map { [$0] } ?? [])
                        if swiftAccepts(sequence) != checkAccepts(sequence) { disagreements.append(sequence) }
                    }
                }
            }
        }
        for ascii in 0...17 {
            for tail: [UInt8] in [[], [0x80], [0xC3, 0xA9], [0xC3], [0xF0, 0x9F, 0x93, 0x81], [0xED, 0xBF, 0xBF]] {
                let bytes = Array(repeating: UInt8(ascii: "y"), count: ascii) + tail + Array("zz".utf8)
                if swiftAccepts(bytes) != checkAccepts(bytes) { disagreements.append(bytes) }
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }

    @Test func agreesWithSwiftOnRandomBytes() {
        var generator = SplitMix64(seed: 0x5eed)
        var disagreements: [[UInt8]] = []
        let alphabet: [UInt8] = [0x41, 0x7F, 0x80, 0xBF, 0xC2, 0xDF, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF, 0xA0, 0x90]
        for _ in 0..<200_000 {
            let count = Int(generator.next() % 24)
            let bytes = (0..<count).map { _ in
                let r = generator.next()
                return r & 1 == 0 ? alphabet[Int((r >> 1) % UInt64(alphabet.count))] : UInt8(truncatingIfNeeded: r >> 8)
            }
            if swiftAccepts(bytes) != checkAccepts(bytes) { disagreements.append(bytes) }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }

    @Test func anEmptyNameIsValid() {
        #expect(UTF8Check.isValid(UnsafeBufferPointer(start: nil, count: 0)))
    }
}
