/// Random client paths for fuzzing the one door for paths (UbiquitySystem) and the daemon behind it:
/// `/`, `..`, `.`, NUL, the names of links a fixture plants (`root`, `other`, `up`, `magic`,
/// `L\u{600}`), grapheme "prepend" and combining characters, invalid UTF-8 and long components.
public enum HostilePaths {
    public static let pieces: [[UInt8]] = [
        Array("/".utf8), Array("..".utf8), Array(".".utf8), [0], Array("L\u{600}".utf8), Array("\u{600}".utf8),
        Array("\u{6DD}".utf8), Array("\u{D4E}".utf8), Array("e\u{301}".utf8), Array("\u{301}".utf8), [0xFF], [0xC0, 0xAF],
        [0xE0, 0x80, 0xAF], Array("Documents".utf8), Array("root".utf8), Array("other".utf8), Array("up".utf8),
        Array("magic".utf8), Array("sub".utf8), Array("Item_1".utf8), Array("Item_2".utf8), Array("etc".utf8),
        Array("secret".utf8), Array("outside".utf8), Array(repeating: UInt8(ascii: "a"), count: 255),
        Array(repeating: UInt8(ascii: "b"), count: 300), Array("proc".utf8), Array("self".utf8),
    ]

    /// A random path below a container: half of them walk the fixture's real tree
    /// (`Documents[/sub]/leaf`, so that many open and links are met on the way), the others 1 to
    /// 12 pieces glued with or without `/`.
    public static func random(_ random: inout SplitMix64) -> [UInt8] {
        let separator = UInt8(ascii: "/")
        var bytes: [UInt8] = []
        if random.chance(0.5) {
            let trunk: [[UInt8]] = [Array("Documents".utf8)] + (random.chance(0.5) ? [Array("sub".utf8)] : [])
            let leaves: [[UInt8]] = ["Item_1", "Item_2", "root", "other", "up", "magic", "L\u{600}", "etc", "secret"].map { Array($0.utf8) }
            bytes = Array((trunk + [random.pick(leaves)]).joined(separator: [separator]))
            if random.chance(0.3) { bytes += [separator] + random.pick(pieces) }
            return bytes
        }
        for _ in 0..<random.int(1...12) {
            bytes += random.pick(pieces)
            if random.chance(0.6) { bytes.append(separator) }
        }
        if random.chance(0.5), bytes.last == separator { bytes.removeLast() }
        return bytes
    }
}
