import CUbiquitySystem
import Foundation
import Testing
import UbiquityPredicate
@testable import UbiquityProtocol

/// Big answers are written into buffers the kernel is asked to back with huge pages
/// (`ubq_prefer_huge_pages`): checked in `/proc/self/smaps`, where the advice shows as the
/// mapping's `hg` flag.
@Suite("Huge pages for big buffers")
struct HugePageAdviceTests {
    /// The `VmFlags` of the mapping that holds `address`, from `/proc/self/smaps`.
    static func flags(at address: UnsafeRawPointer) throws -> [String] {
        // Read to the end: `String(contentsOfFile:)` stops after the first page of a /proc file.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        defer { try? file.close() }
        let smaps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        let target = UInt(bitPattern: address)
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= target && target < bounds[1]
            } else if inside, fields.first == "VmFlags:" {
                return fields.dropFirst().map(String.init)
            }
        }
        throw SmapsError.noMapping(target)
    }

    enum SmapsError: Error { case noMapping(UInt) }

    static let hugePage = 2 << 20

    @Test("a region of several huge pages is advised on every whole huge page in it, a small one not at all")
    func adviceOnRegions() throws {
        let length = 4 * Self.hugePage + 12_345
        let region = try #require(mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        #expect(region != MAP_FAILED)
        defer { munmap(region, length) }
        ubq_prefer_huge_pages(region, length)
        let firstWhole = (Int(bitPattern: region) + Self.hugePage - 1) / Self.hugePage * Self.hugePage
        let lastWhole = (Int(bitPattern: region) + length) / Self.hugePage * Self.hugePage - Self.hugePage
        #expect(try Self.flags(at: UnsafeRawPointer(bitPattern: firstWhole)!).contains("hg"))
        #expect(try Self.flags(at: UnsafeRawPointer(bitPattern: lastWhole)!).contains("hg"))

        let small = Self.hugePage - 1
        let other = try #require(mmap(nil, small, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        #expect(other != MAP_FAILED)
        defer { munmap(other, small) }
        ubq_prefer_huge_pages(other, small)
        #expect(try !Self.flags(at: other).contains("hg"))
        // Nothing to advise and nothing to trap on: no address, no length, lengths that would wrap.
        ubq_prefer_huge_pages(nil, length)
        ubq_prefer_huge_pages(other, 0)
        ubq_prefer_huge_pages(other, Int.max)
        ubq_prefer_huge_pages(UnsafeMutableRawPointer(bitPattern: UInt.max - 4096), Self.hugePage * 2)
    }

    /// Rows with long paths: enough for a line of several huge pages.
    struct Rows: ResultRows {
        var paths: [String]
        var columns: ResultColumns { ResultColumns(paths: paths) }
        func value(_ i: Int, _ attribute: Attribute) -> Value? {
            attribute == .name ? .string(String(paths[i].split(separator: "/").last!)) : nil
        }
    }

    @Test("a line of several megabytes is written into a buffer advised for huge pages")
    func bigLineIsAdvised() throws {
        let rows = Rows(paths: (0..<40_000).map { "/home/someone/.local/share/ubiquity/containers/com.example.app/Documents/Item_\($0)" })
        var whole = ResultEncoder<Never>(attributes: [.name]) { _ in fatalError("rows only") }
            .gatheringFinished(query: 1, rows: rows, fresh: nil, clock: nil)
        let line = whole.whole()
        #expect(line.count > 2 * Self.hugePage)
        #expect(line.last == 0x0A)
        let middle = line.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress! + $0.count / 2) }
        // The buffer advised is the one handed out: finishing the line did not copy it.
        #expect(try Self.flags(at: middle).contains("hg"))
        withExtendedLifetime(line) {}
    }
}
