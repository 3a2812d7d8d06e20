import Testing
@testable import UbiquityProtocol

/// The string writer's eight-bytes-at-a-time scan: it must never pass over a byte that needs
/// escaping, wherever in the word it sits and whatever its neighbours are.
struct JSONLineEscapeTests {
    static func needsLook(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0xE2 }

    @Test func everyByteInEveryPositionIsSeen() {
        for neighbour: UInt8 in [0x61, 0x80, 0xFF, 0x21, 0x1F, 0xE3, 0x00] {
            for byte in UInt8.min...UInt8.max {
                for position in 0..<8 {
                    var word = [UInt8](repeating: neighbour, count: 8)
                    word[position] = byte
                    let value = word.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                    let expected = word.contains(where: Self.needsLook)
                    #expect(JSONLine.mayNeedEscape(value) == expected, "byte \(byte) at \(position) among \(neighbour)")
                }
            }
        }
    }

    @Test func longTextsEscapeAsShortOnes() {
        // Escapes at every offset of a run long enough for the word scan to start before them.
        for special in ["\"", "\\", "\n", "\u{1}", "\u{2028}", "\u{2029}", "\u{E2}"] {
            for offset in 0..<20 {
                let text = String(repeating: "a", count: offset) + special + String(repeating: "b", count: 19 - offset)
                var fast: [UInt8] = []
                JSONLine.writeString(text, to: &fast)
                var byByte: [UInt8] = [UInt8(ascii: "\"")]
                for character in text.unicodeScalars {
                    var one: [UInt8] = []
                    JSONLine.writeString(String(character), to: &one)
                    byByte += one.dropFirst().dropLast()
                }
                byByte.append(UInt8(ascii: "\""))
                #expect(fast == byByte, "\(special.debugDescription) at \(offset)")
                #expect(String(decoding: fast, as: UTF8.self).count < text.count + 12)
            }
        }
    }
}
