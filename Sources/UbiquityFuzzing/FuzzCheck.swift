/// One reader of untrusted bytes and what must hold for any input to it.
public protocol FuzzCheck: SendableMetatype {
    /// The target's name: its executable is `Fuzz<Name>`, its inputs `Fuzz/Corpus/<name>/`.
    static var name: String { get }
    /// What is wrong with how the reader treated `bytes`, or nil when the invariant holds.
    /// A reader that refuses the input with its typed error holds it: refusing is the point.
    static func check(_ bytes: [UInt8]) -> String?
    /// Whether the reader takes `bytes` whole (a seed that it does reaches the code past the
    /// first refusal: a corpus of refusals only would teach the fuzzer little).
    static func accepts(_ bytes: [UInt8]) -> Bool
}

/// Every target, for the replay test and the fuzz runner's table.
public enum FuzzChecks {
    public static let all: [any FuzzCheck.Type] = [
        RequestLineCheck.self, PredicateCheck.self, StoreSegmentCheck.self, KeyValueFileCheck.self, TOMLCheck.self,
        SavedIndexCheck.self, SavedIndexJournalCheck.self, ServerMessageCheck.self, ItemListScanCheck.self,
        ConflictNameCheck.self, GroceryPackageCheck.self, ConfigurationCheck.self, LineSplitterCheck.self,
        RememberedAnswersCheck.self,
    ]

    /// Their names, in ``all``'s order.
    public static var names: [String] { all.map { $0.name } }

    /// The check named `name`.
    public static func named(_ name: String) -> (any FuzzCheck.Type)? { all.first { $0.name == name } }
}
