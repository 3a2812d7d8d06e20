import FoundationEssentials
import UbiquityKit

public enum GroceryLiveListError: Error, Sendable, CustomStringConvertible {
    /// The daemon ended the live query without being asked (it should not; reported, not retried).
    case queryStopped

    public var description: String {
        switch self {
        case .queryStopped: "the daemon stopped the live query"
        }
    }
}
