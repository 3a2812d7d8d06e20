import Glibc
import UbiquityStore
import UbiquityStoreFiles
import UbiquitySystem
import UbiquityTesting

/// Two devices' stores in temporary folders, with Grocery's schema, a wall clock the test moves,
/// and the copying of one device's log into another's container that Syncthing will do.
struct Devices {
    static let schema = try! Schema(version: 1, tables: [
        TableSchema("items", columns: [ColumnSchema("name", .string, nullable: false), ColumnSchema("quantity", .integer),
                                       ColumnSchema("note", .string), ColumnSchema("created", .date), ColumnSchema("done", .bool)]),
        TableSchema("tags", columns: [ColumnSchema("name", .string, nullable: false), ColumnSchema("color", .string)], uniqueBy: ["name"]),
    ], relationships: [RelationshipSchema("tags", from: "items", to: "tags", inverse: "items")])

    let root: String

    init() throws { root = try FS.temporaryDirectory() }

    func container(_ device: String) throws -> String {
        let path = root + "/" + device + "-container"
        if access(path, F_OK) != 0 { try FS.mkdir(path) }
        return path
    }

    func database(_ device: String) -> String { root + "/" + device + ".sqlite" }

    func logs(_ device: String, of writer: String) throws -> String {
        try container(device) + "/.ubiquity-stores/grocery/logs/" + writer
    }

    func open(_ device: String, schema: Schema = Devices.schema, limits: SegmentLimits = SegmentLimits(),
              wall: @escaping @Sendable () -> Int64 = { 1_767_225_600_000 }) async throws -> DeviceStore {
        try await DeviceStore.open(schema: schema, device: DeviceID(device)!, container: try Directory.open(try container(device)),
                                   store: "grocery", databasePath: database(device), limits: limits, wall: wall)
    }

    /// Copies `writer`'s segments from `from`'s container into `to`'s, as a sync engine would
    /// (whole files; a file already there is left alone).
    func sync(_ writer: String, from: String, to: String) throws {
        let source = try logs(from, of: writer)
        guard access(source, F_OK) == 0 else { return }      // nothing written yet
        let target = try logs(to, of: writer)
        try FS.mkdirs(target)
        for name in try FS.names(source) where StoreLayout.sequence(ofSegmentNamed: name) != nil {
            if access(target + "/" + name, F_OK) == 0 { continue }
            try Self.copy(source + "/" + name, target + "/" + name)
        }
    }

    static func read(_ path: String) throws -> [UInt8] {
        let fd = Glibc.open(path, O_RDONLY)
        guard fd >= 0 else { throw RigFailure("open \(path)") }
        defer { close(fd) }
        return try Directory.readAll(fd, limit: 64 << 20)
    }

    static func write(_ path: String, _ bytes: [UInt8]) throws {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw RigFailure("open \(path)") }
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw RigFailure("write \(path)") }
    }

    static func copy(_ from: String, _ to: String) throws { try write(to, try read(from)) }

    /// Every segment in `device`'s container, decoded, in device then sequence order.
    func segments(in device: String) throws -> [Segment] {
        let logs = try container(device) + "/.ubiquity-stores/grocery/logs"
        var segments: [Segment] = []
        for writer in try FS.names(logs).sorted() {
            let names = try FS.names(logs + "/" + writer).compactMap(StoreLayout.sequence(ofSegmentNamed:)).sorted()
            for sequence in names {
                segments.append(try Segment(decoding: try Self.read(logs + "/" + writer + "/" + String(sequence))))
            }
        }
        return segments
    }
}

struct RigFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The rows of a table as the pure state shows them, in id order: what a fetch must return.
func pureRows(_ state: StoreState, _ table: String) -> [StoreRow] {
    state.rowIDs(table).map { StoreRow(id: $0, values: state.row(RowRef(table: table, id: $0)) ?? [:]) }
}
