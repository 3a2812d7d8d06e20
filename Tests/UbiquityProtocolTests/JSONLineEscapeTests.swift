import Testing
@testable import UbiquityProtocol
import UbiquityTesting
import UbiquityJSON
import CUbiquityBytes

/// The sixteen-bytes-at-a-time scan (`ubq_plain_run`) the string writer and the readers share:
/// it may not pass over a byte that needs a look, wherever it sits and whatever its neighbours are.
struct JSONLineEscapeTests {
    static func needsLook(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0xE2 }

    /// The writer's test, on texts of one to two blocks: every byte in every position.
    @Test func everyByteInEveryPositionIsSeen() {
        for neighbour: UInt8 in [0x61, 0x80, 0xFF, 0x21, 0x1F, 0xE3, 0x00] {
            for byte in UInt8.min...UInt8.max {
                for (length, position) in [(8, 0), (8, 7), (16, 0), (16, 9), (16, 15), (20, 3), (20, 17), (20, 19)] {
                    var text = [UInt8](repeating: neighbour, count: length)
                    text[position] = byte
                    let expected = text.contains(where: Self.needsLook)
                    #expect(text.withUnsafeBufferPointer(JSONLine.mayNeedEscaping) == expected,
                            "byte \(byte) at \(position) of \(length) among \(neighbour)")
                }
            }
        }
    }

    /// The copy of an answer's short runs (`ubq_copy`): every length from 0 to past its longest
    /// run of 16-byte steps, from and to every alignment, writes exactly those bytes and none
    /// around them.
    @Test func theShortCopyWritesExactlyItsBytes() {
        let source = (0..<400).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for count in 0...300 {
            for (from, to) in [(0, 0), (1, 3), (7, 0), (15, 9), (3, 16)] {
                var destination = [UInt8](repeating: 0xEE, count: count + 40)
                source.withUnsafeBufferPointer { source in
                    destination.withUnsafeMutableBufferPointer { destination in
                        ubq_copy(destination.baseAddress! + to, source.baseAddress! + from, count)
                    }
                }
                let expected = [UInt8](repeating: 0xEE, count: to) + source[from..<(from + count)]
                    + [UInt8](repeating: 0xEE, count: 40 - to)
                #expect(destination == expected, "\(count) bytes from \(from) to \(to)")
            }
        }
    }

    /// The readers' skip stops exactly at the first byte that needs a look, from any start, and
    /// says whether what it skipped held a byte that is not ASCII.
    @Test func theReadersSkipStopsAtTheFirstByteToLookAt() {
        var random = SplitMix64(seed: 20_261_124)
        let common: [UInt8] = Array("abcxyz019/._-".utf8) + [0x80, 0xC3, 0xA9, 0xF0, 0x9F, 0xFF, 0xE3, 0x7F, 0x20]
        for round in 0..<4_000 {
            let count = random.int(0...80)
            var bytes = (0..<count).map { _ in random.chance(0.02) ? UInt8(truncatingIfNeeded: random.int(0...255)) : random.pick(common) }
            if count > 0, random.chance(0.5) { bytes[random.int(0...(count - 1))] = random.pick([0x00, 0x1F, 0x22, 0x5C, 0xE2, 0x0A]) }
            let start = random.int(0...count)
            let stop = bytes[start...].firstIndex(where: Self.needsLook) ?? count
            let nonASCII = bytes[start..<stop].contains { $0 >= 0x80 }
            var index = start
            var seen: UInt64 = random.chance(0.5) ? 0x41 : 0
            let before = seen
            bytes.withUnsafeBufferPointer { JSONLine.skipPlainWords($0, from: &index, seen: &seen) }
            #expect(index == stop, "round \(round): \(bytes) from \(start)")
            #expect((seen & 0x8080_8080_8080_8080 != 0) == nonASCII && seen & before == before, "round \(round)")
        }
        // Every byte value, in every place of a 16-byte block and of the tail after it.
        for byte in UInt8.min...UInt8.max {
            for position in 0..<24 {
                var bytes = [UInt8](repeating: 0x61, count: 24)
                bytes[position] = byte
                var index = 0
                var seen: UInt64 = 0
                bytes.withUnsafeBufferPointer { JSONLine.skipPlainWords($0, from: &index, seen: &seen) }
                #expect(index == (Self.needsLook(byte) ? position : 24), "byte \(byte) at \(position)")
                #expect((seen != 0) == (!Self.needsLook(byte) && byte >= 0x80), "byte \(byte) at \(position)")
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
