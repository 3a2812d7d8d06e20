import UbiquityBinary
import UbiquityPredicate

/// The file of ``RememberedAnswer``s a clean shutdown writes beside its last snapshot
/// (`index.answers`), and reads back at the next start:
///
/// ```
/// "UBQANSW1"  version (fixed32)  body length (fixed64)  CRC-32 of the body (fixed32)
/// body: the snapshot's id (fixed64), the number of answers, then each answer:
///   key, clock (epoch, sequence), attributes (canonical names), names from paths (bool),
///   directories (each path's bytes), items (id, generation, directory or -1, name, a value per attribute)
/// ```
/// An answer is used only with the snapshot it names, its journal as the shutdown left it
/// (``decode(_:journal:)``): it is what that snapshot's index answered. Every count is checked against the bytes left, every
/// directory number against the directories read, so damage is an error, never a trap.
public enum RememberedAnswers {
    static let magic = Array("UBQANSW1".utf8)
    static let formatVersion: UInt32 = 1
    /// At most this many answers are remembered (in the order the stop closed their connections,
    /// then by query).
    public static let maxAnswers = 16
    /// At most this many results in all: 1M items is tens of megabytes held until the index is loaded.
    public static let maxItems = 1_000_000
    /// Longest key, directory path and name read; a longer one is damage.
    static let maxKeyBytes = 1 << 16
    static let maxPathBytes = 1 << 16
    /// Lists inside lists (tags are one level); deeper is damage.
    static let maxValueDepth = 4
    /// Attributes of one answer (a query asks for at most 64); more, or one twice, is damage.
    static let maxAttributes = 64
    /// Values read in all, list elements included (each is 24 bytes in memory, from one byte
    /// of the file): four per result, with ``maxItems`` results.
    static let maxValues = 4 * maxItems
    /// Largest file: the final save leaves out the answers that would pass it, the next start
    /// reads no larger one.
    public static let maxFileBytes = 512 << 20

    /// The file of `answers`, those that fit ``maxFileBytes`` (the next start reads no more).
    public static func encode(_ answers: [RememberedAnswer], snapshotID: UInt64) -> [UInt8] {
        var written: [[UInt8]] = [], size = 0
        for answer in answers {
            var one = ByteWriter()
            write(answer, to: &one)
            // The header and the counts take well under a kilobyte.
            guard size + one.bytes.count <= maxFileBytes - 1024 else { continue }
            size += one.bytes.count
            written.append(one.bytes)
        }
        var body = ByteWriter(capacity: size + 32)
        body.fixed64(snapshotID)
        body.varint(written.count)
        for one in written { body.append(contentsOf: one) }
        var file = ByteWriter(capacity: magic.count + 24 + body.bytes.count)
        file.append(contentsOf: magic)
        file.fixed32(formatVersion)
        file.fixed64(UInt64(body.bytes.count))
        file.fixed32(CRC32.checksum(body.bytes))
        file.append(contentsOf: body.bytes)
        return file.bytes
    }

    /// The answers of a file written at a clean shutdown whose journal is as it left it
    /// (`journal`: the header of the snapshot the answers name, no record after it); none
    /// otherwise: they would not be what the index loaded from these files answers.
    public static func decode(_ bytes: [UInt8], journal: [UInt8]) throws(SavedIndexError) -> [RememberedAnswer] {
        let (snapshotID, start) = try open(bytes)
        guard journal == IndexJournal.header(snapshotID: snapshotID, bootID: "") else { return [] }
        return try answers(bytes, from: start, snapshotID: snapshotID)
    }

    /// The answers of a file written with snapshot `snapshotID`; none when it names another
    /// snapshot (they are not that index's answers).
    package static func decode(_ bytes: [UInt8], snapshotID: UInt64) throws(SavedIndexError) -> [RememberedAnswer] {
        let (written, start) = try open(bytes)
        return written == snapshotID ? try answers(bytes, from: start, snapshotID: snapshotID) : []
    }

    /// Checks the header and the checksum; the snapshot the answers were taken with, and where they start.
    private static func open(_ bytes: [UInt8]) throws(SavedIndexError) -> (snapshotID: UInt64, start: Int) {
        guard bytes.count >= magic.count, Array(bytes[0..<magic.count]) == magic else { throw .foreign }
        var reader = BinaryReader(bytes, from: magic.count)
        let version = try reader.fixed32()
        guard version == formatVersion else { throw .unsupportedVersion(version) }
        let length = try reader.fixed64()
        let checksum = try reader.fixed32()
        guard length == UInt64(reader.remaining) else { throw length > UInt64(reader.remaining) ? .truncated : .invalid("bytes after the end") }
        guard CRC32.checksum(bytes[reader.offset...]) == checksum else { throw .checksumMismatch }
        return (try reader.fixed64(), reader.offset)
    }

    private static func answers(_ bytes: [UInt8], from start: Int, snapshotID: UInt64) throws(SavedIndexError) -> [RememberedAnswer] {
        var reader = BinaryReader(bytes, from: start)
        let count = try reader.count()
        guard count <= maxAnswers else { throw .invalid("\(count) remembered answers (at most \(maxAnswers))") }
        var answers: [RememberedAnswer] = []
        var items = 0, valuesLeft = maxValues
        for _ in 0..<count {
            let answer = try read(&reader, snapshotID: snapshotID, valuesLeft: &valuesLeft)
            items += answer.results.count
            guard items <= maxItems else { throw .invalid("more than \(maxItems) remembered results") }
            answers.append(answer)
        }
        guard reader.remaining == 0 else { throw .invalid("bytes after the last answer") }
        return answers
    }

    // MARK: - One answer

    private static func write(_ answer: RememberedAnswer, to body: inout ByteWriter) {
        let results = answer.results
        body.string(answer.key)
        body.fixed64(answer.clock.epoch)
        body.fixed64(answer.clock.sequence)
        body.varint(results.attributes.count)
        for attribute in results.attributes { body.string(attribute.canonicalName) }
        body.bool(results.namesFromPaths)
        body.varint(results.directoryEnds.count)
        var start = 0
        for end in results.directoryEnds {
            body.lengthPrefixed(results.directoryBytes[start..<end])
            start = end
        }
        body.varint(results.count)
        for i in 0..<results.count {
            let identity = results.identity(i)
            body.varint(identity.id)
            body.varint(identity.generation)
            body.zigzag(Int64(results.itemDirectories[i]))
            body.lengthPrefixed(results.nameBytes[results.nameStarts[i]..<results.nameEnds[i]])
            for column in results.attributes.indices { write(results.storedValue(i, column: column), to: &body) }
        }
    }

    /// One answer; `valuesLeft`: how many more values may be read (``maxValues``).
    private static func read(_ reader: inout BinaryReader, snapshotID: UInt64,
                             valuesLeft: inout Int) throws(SavedIndexError) -> RememberedAnswer {
        let key = try reader.string(maxBytes: maxKeyBytes)
        let clock = HistoryClock(epoch: try reader.fixed64(), sequence: try reader.fixed64())
        let attributeCount = try reader.count()
        guard attributeCount <= maxAttributes else { throw .invalid("\(attributeCount) attributes (at most \(maxAttributes))") }
        var attributes: [Attribute] = []
        for _ in 0..<attributeCount {
            let name = try reader.string()
            guard let attribute = Attribute.named(name) else { throw .invalid("an unknown attribute '\(name)'") }
            guard !attributes.contains(attribute) else { throw .invalid("the attribute '\(name)' twice") }
            attributes.append(attribute)
        }
        let namesFromPaths = try reader.bool()
        let directoryCount = try reader.count()
        guard directoryCount <= maxItems else { throw .invalid("\(directoryCount) directories (at most \(maxItems))") }
        var directoryBytes: [UInt8] = [], directoryEnds: [Int] = []
        directoryEnds.reserveCapacity(directoryCount)
        for _ in 0..<directoryCount {
            try reader.withStringBytes(maxBytes: maxPathBytes) { directoryBytes.append(contentsOf: $0) }
            directoryEnds.append(directoryBytes.count)
        }
        // Each item takes at least four bytes (id, generation, directory, name length) and one per value.
        let itemCount = try reader.count(minimumSize: 4 + attributes.count)
        guard itemCount <= maxItems else { throw .invalid("\(itemCount) remembered results (at most \(maxItems))") }
        var identities: [ItemIdentity] = [], nameBytes: [UInt8] = [], nameStarts: [Int] = [], nameEnds: [Int] = []
        var itemDirectories: [Int32] = [], values: [Value?] = []
        identities.reserveCapacity(itemCount)
        nameStarts.reserveCapacity(itemCount)
        nameEnds.reserveCapacity(itemCount)
        itemDirectories.reserveCapacity(itemCount)
        values.reserveCapacity(itemCount * attributes.count)
        // Names of a dozen bytes or so: one or two doublings instead of twenty.
        nameBytes.reserveCapacity(min(itemCount * 16, reader.remaining))
        for _ in 0..<itemCount {
            identities.append(ItemIdentity(id: try reader.uint32(), generation: try reader.uint32()))
            let directory = try reader.zigzag()
            guard directory >= -1, directory < Int64(directoryCount) else { throw .invalid("a result in directory \(directory) of \(directoryCount)") }
            itemDirectories.append(Int32(directory))
            nameStarts.append(nameBytes.count)
            try reader.withStringBytes(maxBytes: maxPathBytes) { nameBytes.append(contentsOf: $0) }
            nameEnds.append(nameBytes.count)
            for _ in attributes.indices { values.append(try readValue(&reader, depth: 0, valuesLeft: &valuesLeft)) }
        }
        let results = ResultSet.parts(attributes: attributes, identities: identities, directoryBytes: directoryBytes,
                                      directoryEnds: directoryEnds, nameBytes: nameBytes, nameStarts: nameStarts,
                                      nameEnds: nameEnds, itemDirectories: itemDirectories, values: values,
                                      namesFromPaths: namesFromPaths)
        return RememberedAnswer(key: key, clock: clock, results: results, snapshotID: snapshotID)
    }

    // MARK: - Values

    private enum Tag: UInt8 { case none, null, falseValue, trueValue, integer, double, string, date, list }

    private static func write(_ value: Value?, to body: inout ByteWriter) {
        guard let value else { return body.byte(Tag.none.rawValue) }
        switch value {
        case .null: body.byte(Tag.null.rawValue)
        case .bool(let b): body.byte(b ? Tag.trueValue.rawValue : Tag.falseValue.rawValue)
        case .integer(let i):
            body.byte(Tag.integer.rawValue)
            body.zigzag(i)
        case .double(let d):
            body.byte(Tag.double.rawValue)
            body.fixed64(d.bitPattern)
        case .string(let s):
            body.byte(Tag.string.rawValue)
            body.string(s)
        case .date(let d):
            body.byte(Tag.date.rawValue)
            body.fixed64(d.bitPattern)
        case .list(let items):
            body.byte(Tag.list.rawValue)
            body.varint(items.count)
            for item in items { write(item, to: &body) }
        }
    }

    private static func readValue(_ reader: inout BinaryReader, depth: Int, valuesLeft: inout Int) throws(SavedIndexError) -> Value? {
        valuesLeft -= 1
        guard valuesLeft >= 0 else { throw .invalid("more than \(maxValues) values") }
        let byte = try reader.byte()
        guard let tag = Tag(rawValue: byte) else { throw .invalid("a value of kind \(byte)") }
        switch tag {
        case .none: return nil
        case .null: return .null
        case .falseValue: return .bool(false)
        case .trueValue: return .bool(true)
        case .integer: return .integer(try reader.zigzag())
        case .double: return .double(Double(bitPattern: try reader.fixed64()))
        case .string: return .string(try reader.string(maxBytes: maxPathBytes))
        case .date: return .date(Double(bitPattern: try reader.fixed64()))
        case .list:
            guard depth < maxValueDepth else { throw .invalid("lists nested deeper than \(maxValueDepth)") }
            let count = try reader.count()
            var items: [Value] = []
            for _ in 0..<count {
                guard let item = try readValue(&reader, depth: depth + 1, valuesLeft: &valuesLeft) else {
                    throw .invalid("a list holds no value")
                }
                items.append(item)
            }
            return .list(items)
        }
    }
}
