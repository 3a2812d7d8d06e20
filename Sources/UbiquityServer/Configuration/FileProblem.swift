import Glibc
import UbiquityIndex
import UbiquityProtocol
import UbiquityTOML

// MARK: - Reading a file

/// Why a file-system step failed, as a sentence fragment ("does not exist").
struct FileProblem: Error, Equatable, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}
