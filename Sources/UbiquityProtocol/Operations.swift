import UbiquityPredicate

/// The one registry of the protocol's operations. To add one, declare it in a file of its own
/// under `Operations/`, named after its type; the build lists that folder (`Operations.declared`,
/// written by OperationRegistryPlugin), and the daemon answers it through its handler
/// (docs/architecture.md, "How to add a protocol operation").
public enum Operations {
    /// Every operation, by name of its declaration file.
    public static let all: [any ProtocolOperation.Type] = declared

    /// The `op` names (docs, errors and "did you mean" read them).
    public static let names = all.map { $0.name }

    private static let byName = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// Operations this protocol no longer has, with what to do instead: the daemon serves
    /// every local user and never reads or moves file contents for them (docs/versions.md).
    public static let retired: [String: String] = [
        "version.read": "the daemon no longer returns file contents: read the version at its 'path' from versions.list yourself (UbiquityKit: FileVersion.contents())",
        "version.resolve": "the daemon no longer renames or removes files: resolve with your own rights as docs/versions.md describes (UbiquityKit: FileVersion.replaceItem, removeOtherVersionsOfItem)",
    ]

    /// The operation a request names in `op`, with its parameters read.
    /// - Throws: `request.unknownOperation` for a name not listed (saying what replaced a retired
    ///   one, or which name was probably meant), `request.malformed` for its parameters.
    static func operation(_ request: FieldReader) throws(ProtocolError) -> any ProtocolOperation {
        let op = try request.string("op")
        guard let type = byName[op] else {
            if let instead = retired[op] {
                throw ProtocolError(.requestUnknownOperation, "operation '\(op)' was removed; \(instead)", details: ["op": .string(op)])
            }
            let hint = NameSuggestion.nearest(to: op, in: names).map { "; did you mean '\($0)'?" } ?? ""
            throw ProtocolError(.requestUnknownOperation, "unknown operation '\(op)'\(hint)", details: ["op": .string(op)])
        }
        return try type.init(request)
    }
}
