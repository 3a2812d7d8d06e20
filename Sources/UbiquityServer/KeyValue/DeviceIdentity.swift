import Glibc
import UbiquityKeyValue

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

    /// Reads the id, or makes and stores a new one.
    static func load(stateDirectory: String) -> Result<String, FileProblem> {
        if let text = try? readSmallFile(stateDirectory + "/" + fileName) {
            let id = text.split(whereSeparator: { $0 == "\n" || $0 == " " || $0 == "\r" || $0 == "\t" }).first.map(String.init) ?? ""
            guard KVReplica.isDeviceID(id) else {
                return .failure(FileProblem("\(stateDirectory)/\(fileName) does not hold a device id (1 to 64 of A-Z a-z 0-9 - _)"))
            }
            return .success(id)
        }
        var made = ""
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<16 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            made += String(byte >> 4, radix: 16) + String(byte & 15, radix: 16)
        }
        if let failure = DurableFiles.makeDirectories(stateDirectory) { return .failure(FileProblem(failure)) }
        let fd = open(stateDirectory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(FileProblem("cannot open \(stateDirectory): \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        if let failure = KeyValueFiles.write(Array((made + "\n").utf8), to: fileName, in: fd) {
            return .failure(FileProblem("\(stateDirectory): \(failure)"))
        }
        return .success(made)
    }

    private static func readSmallFile(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileProblem("cannot open \(path)") }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = read(fd, &buffer, buffer.count)
        guard n >= 0 else { throw FileProblem("cannot read \(path)") }
        return String(decoding: buffer[..<n], as: UTF8.self)
    }
}
