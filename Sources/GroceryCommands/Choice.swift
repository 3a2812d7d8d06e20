import ArgumentParser
import GroceryStore

/// An option whose value is one of a GroceryStore enum's cases (`--store`, `--sort`); the enum
/// stays free of ArgumentParser.
struct Choice<Value: RawRepresentable & CaseIterable & Sendable>: ExpressibleByArgument, Sendable
    where Value.RawValue == String {
    let value: Value
    init(_ value: Value) { self.value = value }
    init?(argument: String) {
        guard let value = Value(rawValue: argument) else { return nil }
        self.value = value
    }
    var defaultValueDescription: String { value.rawValue }
    static var allValueStrings: [String] { Value.allCases.map(\.rawValue) }
}
