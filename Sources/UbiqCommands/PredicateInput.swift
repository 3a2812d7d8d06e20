import ArgumentParser
import FoundationEssentials
import UbiquityPredicate

/// The predicate text and its substitutions, shared by `check` and `eval`.
struct PredicateInput: ParsableArguments {
    @Argument(help: ArgumentHelp(
        "The predicate, e.g. \"kMDItemFSName LIKE 'Item_*'\". Quote it for the shell.",
        valueName: "predicate"))
    var predicate: String

    @Argument(help: ArgumentHelp(
        "Values for %@, %K, %d and %f, in order. Each is text; it is converted to the compared attribute's type.",
        valueName: "arg"))
    var arguments: [String] = []

    @Option(name: .customLong("var"), help: ArgumentHelp(
        "Bind $NAME in the predicate to VALUE (repeatable).", valueName: "NAME=VALUE"))
    var variables: [String] = []

    func parsedPredicate() throws -> MetadataPredicate {
        var bindings: [String: Value] = [:]
        for binding in variables {
            guard let equals = binding.firstIndex(of: "="), equals != binding.startIndex else {
                throw ValidationError("--var expects NAME=VALUE, found '\(binding)'")
            }
            bindings[String(binding[..<equals])] = .string(String(binding[binding.index(after: equals)...]))
        }
        do {
            return try MetadataPredicate(parsing: predicate, arguments: arguments.map(Value.string), variables: bindings)
        } catch {
            Terminal.error(Terminal.explain(error, in: predicate))
            throw ExitCode(2)
        }
    }
}
