import Testing
@testable import UbiquityIndex

/// The statuses' column: an array in chunks, shared chunk by chunk with a snapshot.
struct ChunkedColumnTests {
    @Test func holdsWhatWasAppendedAcrossChunksAndACopyStaysAsTaken() {
        let count = ChunkedColumn<Int>.chunkSize * 2 + 5
        var column = ChunkedColumn<Int>()
        column.reserveCapacity(count)
        for i in 0..<count { column.append(i * 3) }
        #expect(column.count == count)
        #expect(Array(column) == (0..<count).map { $0 * 3 })
        #expect(ChunkedColumn(Array(column)).elementsEqual(column))

        let taken = column
        column[1] = -1
        column[ChunkedColumn<Int>.chunkSize + 7] = -2
        column.append(-3)
        #expect(Array(taken) == (0..<count).map { $0 * 3 }, "the copy changed with the original")
        #expect(column[1] == -1 && column[ChunkedColumn<Int>.chunkSize + 7] == -2 && column[count] == -3)
        #expect(column.count == count + 1 && taken.count == count)
    }
}
