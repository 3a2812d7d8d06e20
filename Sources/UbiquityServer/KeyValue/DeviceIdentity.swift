import Glibc
import UbiquityKeyValue
import UbiquitySystem

/// This daemon's device id: 32 random hex digits in `<state directory>/device-id`, made on first
/// use and kept (docs/kv-store.md). It names this device's file of every key-value store.
enum DeviceIdentity {
    static let fileName = "device-id"

    /// The state directory: `$STATE_DIRECTORY` (systemd's `StateDirectory=`), else
    /// `$XDG_STATE_HOME/ubiquity`, else `$HOME/.local/state/ubiquity`, else `/var/lib/ubiquity`.
    static func stateDirectory(environment: [String: String]) -> String {
        func absolute(_ value: String?) -> String? {
            guard let value, value.hasPrefix("/") else { return nil }
            return value
        }
        if let state = absolute(environment["STATE_DIRECTORY"]?.split(separator: ":").first.map(String.init)) { return state }
        if let xdg = absolute(environment["XDG_STATE_HOME"]) { return xdg + "/ubiquity" }
        if geteuid() != 0, let home = absolute(environment["HOME"]) { return home + "/.local/state/ubiquity" }
        return "/var/lib/ubiquity"
    }

    /// Reads the id, or makes and stores a new one. The state directory must be the daemon's own
    /// (``DurableFiles/openStateDirectory(_:)``): otherwise there is no id, and why says what to do.
    static func load(stateDirectory: String) -> Result<String, FileProblem> {
        let fd: Directory
        switch DurableFiles.openStateDirectory(stateDirectory) {
        case .success(let value): fd = value
        case .failure(let problem): return .failure(problem)
        }
        switch DurableFiles.read(fileName, in: fd, limit: 256) {
        case .success(let bytes)?:
            let text = String(decoding: bytes, as: UTF8.self)
            let id = text.split(whereSeparator: { $0 == "\n" || $0 == " " || $0 == "\r" || $0 == "\t" }).first.map(String.init) ?? ""
            guard KVReplica.isDeviceID(id) else {
                return .failure(FileProblem("\(stateDirectory)/\(fileName) does not hold a device id (1 to 64 of A-Z a-z 0-9 - _)"))
            }
            return .success(id)
        case .failure(let problem)?:
            return .failure(FileProblem("\(stateDirectory)/\(fileName): \(problem.message)"))
        case nil:
            break
        }
        var made = ""
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<16 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            made += String(byte >> 4, radix: 16) + String(byte & 15, radix: 16)
        }
        do {
            try fd.replace(fileName, with: Array((made + "\n").utf8))
        } catch {
            return .failure(FileProblem("\(error)"))
        }
        return .success(made)
    }
}
