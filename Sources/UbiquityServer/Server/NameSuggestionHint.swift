import Synchronization
import UbiquityIndex
import UbiquityProtocol
import UbiquityPredicate

enum NameSuggestionHint {
    static func text(for word: String, in names: [String]) -> String {
        NameSuggestion.nearest(to: word, in: names).map { "; did you mean '\($0)'?" } ?? ""
    }
}
