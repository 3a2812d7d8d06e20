import Synchronization
import Testing
@testable import UbiquityIndex

/// The index's columns: arrays in chunks, shared chunk by chunk with a snapshot, so that a write
/// after a snapshot copies one chunk.
struct ChunkedColumnTests {
    static let chunk = ChunkedColumn<Int>.chunkSize

    @Test func holdsWhatWasAppendedAcrossChunksAndACopyStaysAsTaken() {
        let count = Self.chunk * 2 + 5
        var column = ChunkedColumn<Int>()
        column.reserveCapacity(count)
        for i in 0..<count { column.append(i * 3) }
        #expect(column.count == count)
        #expect(Array(column) == (0..<count).map { $0 * 3 })
        #expect(ChunkedColumn(Array(column)).elementsEqual(column))
        #expect(column.withReader { reader in (0..<reader.count).map { reader[$0] } } == Array(column))

        let taken = column
        column[1] = -1
        column[Self.chunk + 7] = -2
        column.append(-3)
        #expect(Array(taken) == (0..<count).map { $0 * 3 }, "the copy changed with the original")
        #expect(column[1] == -1 && column[Self.chunk + 7] == -2 && column[count] == -3)
        #expect(column.count == count + 1 && taken.count == count)
    }

    /// Many values at once land as appending them one by one would: from empty, from a partly
    /// filled first chunk, from a chunk a copy shares (which keeps its values), across chunks.
    @Test(arguments: [0, 3, 17, chunk - 1, chunk, chunk + 9])
    func valuesAppendedTogetherAreThoseAppendedOneByOne(already: Int) {
        var column = ChunkedColumn(0..<already)
        let taken = column
        var expected = Array(0..<already)
        for batch in [1, 5, Self.chunk - 2, 2 * Self.chunk + 3, 0] {
            let values = (0..<batch).map { -1 - expected.count - $0 }
            column.append(contentsOf: values)
            expected += values
            #expect(Array(column) == expected)
            #expect(column.withReader { reader in (0..<reader.count).map { reader[$0] } } == expected)
        }
        #expect(Array(taken) == Array(0..<already), "the copy changed with the original")
        var grown = taken
        grown.append(contentsOf: [42, 43])
        #expect(Array(grown) == Array(0..<already) + [42, 43])
        #expect(Array(column) == expected, "the original changed with the copy")
        column.append(7)
        #expect(column.count == expected.count + 1 && column[expected.count] == 7)
    }

    /// Where value `i` lives in memory: the same address in two columns means they share its chunk.
    static func address<T>(_ column: ChunkedColumn<T>, _ i: Int) -> UnsafeRawPointer {
        column.withReader { UnsafeRawPointer($0.address(i)) }
    }

    @Test func aWriteAfterACopyCopiesOnlyTheChunkItWritesTo() {
        var column = ChunkedColumn(0..<(Self.chunk * 4))
        let taken = column
        for c in 0..<4 { #expect(Self.address(column, c * Self.chunk) == Self.address(taken, c * Self.chunk)) }

        column[Self.chunk * 2 + 100] = -1
        for c in 0..<4 {
            let shared = Self.address(column, c * Self.chunk) == Self.address(taken, c * Self.chunk)
            #expect(shared == (c != 2), "chunk \(c) shared: \(shared)")
        }
        // The chunk copied once is the column's own: the next write to it copies nothing.
        let copied = Self.address(column, Self.chunk * 2)
        column[Self.chunk * 2 + 101] = -2
        #expect(Self.address(column, Self.chunk * 2) == copied)
        #expect(taken[Self.chunk * 2 + 100] == Self.chunk * 2 + 100 && taken[Self.chunk * 2 + 101] == Self.chunk * 2 + 101)
        #expect(column[Self.chunk * 2 + 100] == -1 && column[Self.chunk * 2 + 101] == -2)

        // Appending to a shared last chunk copies that chunk, and the copy keeps its count.
        var partial = ChunkedColumn(0..<(Self.chunk + 10))
        let before = partial
        partial.append(-5)
        #expect(Self.address(partial, 0) == Self.address(before, 0))
        #expect(Self.address(partial, Self.chunk) != Self.address(before, Self.chunk))
        #expect(before.count == Self.chunk + 10 && Array(before) == Array(0..<(Self.chunk + 10)))
        #expect(partial.count == Self.chunk + 11 && partial[Self.chunk + 10] == -5)
    }

    @Test func valuesTakenFromTheEndOrWholeChunksFromTheStartLeaveACopyAsItWas() {
        let count = Self.chunk * 3 + 2
        var column = ChunkedColumn(0..<count)
        let taken = column
        var popped: [Int] = []
        while column.count > Self.chunk * 2 - 1, let last = column.popLast() { popped.append(last) }
        #expect(popped == Array(((Self.chunk * 2 - 1)..<count).reversed()))
        #expect(column.count == Self.chunk * 2 - 1 && column.capacity == Self.chunk * 2, "the emptied chunk went")
        column.append(-1)
        #expect(column.count == Self.chunk * 2 && column[Self.chunk * 2 - 1] == -1)

        column.removeFirstChunks(1)
        #expect(Array(column) == Array(Self.chunk..<(Self.chunk * 2 - 1)) + [-1])
        column.removeFirstChunks(1)
        #expect(column.isEmpty && column.capacity == 0)
        column.append(5)
        #expect(Array(column) == [5])
        #expect(Array(taken) == Array(0..<count), "the copy changed with the original")

        var empty = ChunkedColumn<Int>()
        #expect(empty.popLast() == nil)
    }

    @Test func theFirstChunkGrowsFromSmallAndLaterChunksAreWhole() {
        var column = ChunkedColumn<UInt8>()
        var capacities: [Int] = []
        for i in 0..<(Self.chunk * 2 + 1) {
            column.append(UInt8(truncatingIfNeeded: i))
            if capacities.last != column.capacity { capacities.append(column.capacity) }
        }
        var doubling = [ChunkedColumn<UInt8>.smallestChunk]
        while doubling.last! < Self.chunk { doubling.append(doubling.last! * 2) }
        #expect(capacities == doubling + [Self.chunk * 2, Self.chunk * 3])
        #expect(column.elementsEqual((0..<(Self.chunk * 2 + 1)).map { UInt8(truncatingIfNeeded: $0) }))

        // Room asked for up front: the first chunk is made that big at once (at most whole).
        var reserved = ChunkedColumn<Int>()
        reserved.reserveCapacity(100)
        #expect(reserved.capacity == 100)
        reserved.append(7)
        reserved.reserveCapacity(Self.chunk * 3)
        #expect(reserved.capacity == Self.chunk && reserved.count == 1 && reserved[0] == 7)
        #expect(ChunkedColumn(repeating: 9, count: 5).elementsEqual([9, 9, 9, 9, 9]))
    }

    /// Values that count themselves: every copy, move and resize keeps each value alive exactly
    /// as long as a column holds it.
    final class Counted: Sendable {
        let live: Mutex<Int>
        init() { live = Mutex(0) }
        final class Value {
            let owner: Counted
            let number: Int
            init(_ owner: Counted, _ number: Int) {
                self.owner = owner
                self.number = number
                owner.live.withLock { $0 += 1 }
            }
            deinit { owner.live.withLock { $0 -= 1 } }
        }
        var count: Int { live.withLock { $0 } }
    }

    @Test func valuesLiveExactlyAsLongAsAColumnHoldsThem() {
        let counted = Counted()
        do {
            var column = ChunkedColumn<Counted.Value>()
            for i in 0..<(Self.chunk + 20) { column.append(Counted.Value(counted, i)) }
            #expect(counted.count == Self.chunk + 20)
            do {
                let taken = column
                column[3] = Counted.Value(counted, -1)
                column.append(Counted.Value(counted, -2))
                // The copy still holds the value overwritten in the original.
                #expect(counted.count == Self.chunk + 20 + 2)
                #expect(taken[3].number == 3 && column[3].number == -1)
            }
            #expect(counted.count == Self.chunk + 21)
            #expect(column.map(\.number).prefix(5) == [0, 1, 2, -1, 4])
        }
        #expect(counted.count == 0)
    }

    @Test func readingPastTheEndStops() async {
        await #expect(processExitsWith: .failure) {
            var column = ChunkedColumn<Int>()
            column.append(1)
            _ = column[1]
        }
        await #expect(processExitsWith: .failure) {
            var column = ChunkedColumn(0..<10)
            column[-1] = 0
        }
    }
}
