import Foundation
import Glibc
import Testing
import UbiquityStore
import UbiquityStoreFiles
import UbiquitySystem
import UbiquityTesting

/// `kill -9` of a real process in the middle of local writes and of an import: no acknowledged
/// transaction is lost, no segment number is used twice, and no segment is imported twice —
/// counted in rows, files, watermarks and the change log.
@Suite("Store crashes", .ownThreads)
struct StoreCrashTests {
    static let rig = BuiltExecutable("store-rig")

    /// Starts `store-rig` with `arguments`; its output lines and its exit.
    static func start(_ arguments: [String]) throws -> (Process, LineReader, ProcessExit) {
        let process = Process()
        process.executableURL = rig.url
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let exit = ProcessExit.of(process)
        try process.run()
        return (process, LineReader(pipe.fileHandleForReading), exit)
    }

    /// Checks the laptop's store as a restart finds it: every row is one acknowledged-or-later
    /// transaction, files 1…N with N the watermark, one change-log row per segment.
    static func verify(_ devices: Devices, acknowledged: Set<Int>) async throws -> Int {
        let store = try await devices.open("laptop")
        let watermark = Int(store.syncStates.first { $0.device == DeviceID("laptop")! }?.imported ?? 0)
        let files = try FS.names(try devices.logs("laptop", of: "laptop")).compactMap(StoreLayout.sequence(ofSegmentNamed:)).sorted()
        #expect(files == (0..<watermark).map { UInt64($0 + 1) }, "segment files are 1…\(watermark), no gap, no extra")
        let rows = try await store.fetch("items")
        #expect(rows.count == watermark, "one row per segment")
        #expect(try await store.cacheCount("ubiq_changes") == watermark, "each segment applied once")
        let present = Set(rows.compactMap { row -> Int? in if case .integer(let n)? = row.values["quantity"] { Int(n) } else { nil } })
        #expect(acknowledged.isSubset(of: present), "acknowledged but lost: \(acknowledged.subtracting(present).sorted())")
        #expect(present == Set(0..<watermark), "rows are the first \(watermark) transactions")
        return watermark
    }

    @Test(arguments: [3, 40, 170] as [Int])
    func killedMidWriteLosesNoAcknowledgedTransaction(killAfter: Int) async throws {
        let devices = try Devices()
        let arguments = ["write", try devices.container("laptop"), devices.database("laptop"), "laptop", "400"]
        var acknowledged = Set<Int>()
        for round in 0..<2 {
            let (process, lines, exit) = try Self.start(arguments)
            while acknowledged.count < killAfter * (round + 1), let line = lines.next(within: 30) {
                let words = line.split(separator: " ")
                if words.first == "ack", let n = Int(words[1]) { acknowledged.insert(n) }
            }
            kill(process.processIdentifier, SIGKILL)
            #expect(exit.wait(within: 30))
            #expect(acknowledged.count >= killAfter * (round + 1), "the child acknowledged before it was killed")
            let watermark = try await Self.verify(devices, acknowledged: acknowledged)
            #expect(watermark >= acknowledged.count)
        }
        // Run to the end after the crashes: 400 transactions, 400 segments.
        let finished = try Self.rig.run(arguments, deadline: 120)
        #expect(finished.status == 0 && finished.stdout.hasSuffix("done\n"), "\(finished.stderr)")
        #expect(try await Self.verify(devices, acknowledged: Set(0..<400)) == 400)
    }

    /// The phone's log of 200 segments (50 rows each) arrives; the laptop's import is killed at
    /// three moments, then finishes: every segment once.
    @Test func killedMidImportImportsEachSegmentOnce() async throws {
        let devices = try Devices()
        let made = try Self.rig.run(["remote", try devices.container("laptop"), "phone", "10000", "50"], deadline: 120)
        #expect(made.status == 0, "\(made.stderr)")
        let arguments = ["import", try devices.container("laptop"), devices.database("laptop"), "laptop"]
        var generator = SplitMix64(seed: 35)
        for _ in 0..<3 {
            let (process, lines, exit) = try Self.start(arguments)
            #expect(lines.next(within: 30) == "opening")
            // A random moment of the import to crash at (not a wait for anything).
            usleep(UInt32(generator.next() % 400_000))  // sleep-ok: a random crash point, not a wait for an event
            kill(process.processIdentifier, SIGKILL)
            #expect(exit.wait(within: 30))
        }
        let store = try await devices.open("laptop")
        let phone = store.syncStates.first { $0.device == DeviceID("phone")! }
        #expect(phone?.imported == 200 && phone?.condition == .current)
        #expect(try await store.cacheCount("t_items") == 10_000)
        #expect(try await store.cacheCount("ubiq_changes") == 200, "each segment logged once")
        #expect(try await store.importAvailable().isEmpty)
    }

    /// The same with a snapshot every 7 segments and compaction (the laptop alone removes what its
    /// snapshot covers): killed at any moment — mid-segment, mid-snapshot, mid-removal — nothing
    /// acknowledged is lost; the segments left run on from the newest snapshot without a gap;
    /// every snapshot reads back whole; and a device that comes late holds every row.
    @Test(arguments: [20, 90] as [Int])
    func killedWhileSnapshottingAndCompactingLosesNothing(killAfter: Int) async throws {
        let devices = try Devices()
        let arguments = ["write", try devices.container("laptop"), devices.database("laptop"), "laptop", "300", "7"]
        let folder = try devices.container("laptop") + "/.ubiquity-stores/grocery"
        var acknowledged = Set<Int>()
        func verify() async throws -> Int {
            let store = try await devices.open("laptop")
            let watermark = Int(store.syncStates.first { $0.device == DeviceID("laptop")! }?.imported ?? 0)
            let rows = try await store.fetch("items")
            let present = Set(rows.compactMap { row -> Int? in if case .integer(let n)? = row.values["quantity"] { Int(n) } else { nil } })
            #expect(acknowledged.isSubset(of: present), "acknowledged but lost: \(acknowledged.subtracting(present).sorted())")
            #expect(present == Set(0..<watermark), "rows are the first \(watermark) transactions")
            let snapshots = (try? FS.names(folder + "/snapshots/laptop"))?.compactMap(StoreLayout.sequence(ofSegmentNamed:)).sorted() ?? []
            for sequence in snapshots {
                let bytes = try Devices.read(folder + "/snapshots/laptop/\(sequence)")
                #expect((try? Snapshot(decoding: bytes, schema: Devices.schema)) != nil, "snapshot \(sequence) reads back")
            }
            let files = try FS.names(folder + "/logs/laptop").compactMap(StoreLayout.sequence(ofSegmentNamed:)).sorted()
            if let first = files.first, let last = files.last {
                #expect(files == Array(first...last) && last == UInt64(watermark), "segments run on to the watermark without a gap: \(files)")
                #expect(first == 1 || snapshots.contains { $0 >= first - 1 }, "segments before \(first) are covered by a snapshot: \(snapshots)")
            } else {
                #expect(watermark == 0 || snapshots.contains(UInt64(watermark)), "every segment removed, so a snapshot covers them all: \(snapshots)")
            }
            return watermark
        }
        for round in 0..<2 {
            let (process, lines, exit) = try Self.start(arguments)
            while acknowledged.count < killAfter * (round + 1), let line = lines.next(within: 30) {
                let words = line.split(separator: " ")
                if words.first == "ack", let n = Int(words[1]) { acknowledged.insert(n) }
            }
            kill(process.processIdentifier, SIGKILL)
            #expect(exit.wait(within: 30))
            #expect(try await verify() >= acknowledged.count)
        }
        let finished = try Self.rig.run(arguments, deadline: 120)
        #expect(finished.status == 0 && finished.stdout.hasSuffix("done\n"), "\(finished.stderr)")
        acknowledged = Set(0..<300)
        #expect(try await verify() == 300)
        #expect(try FS.names(folder + "/logs/laptop").compactMap(StoreLayout.sequence(ofSegmentNamed:)).count < 7, "compacted")
        // A device opened over the same folder starts from the snapshot and the segments after it.
        let late = try await DeviceStore.open(schema: Devices.schema, device: DeviceID("late")!, container: try Directory.open(try devices.container("laptop")),
                                              store: "grocery", databasePath: devices.database("late"))
        #expect(try await late.fetch("items").count == 300)
    }
}
