import UbiquityProtocol
import UbiquityJSON
import UbiquitySystem

/// One published snapshot as the daemon keeps it: who published what, where its bytes are, until when.
struct PublishedSnapshot: Sendable, Hashable {
    /// The URL's secret: 32 URL-safe characters (192 bits from the kernel's CSPRNG).
    var token: String
    /// The snapshot file's name in the publish directory (random, unrelated to the token).
    var file: String
    /// The user that published it: only it may list or revoke it.
    var uid: UInt32
    /// The item's absolute path at publish time (its last component names the download).
    var path: String
    var size: Int64
    /// Seconds since 1970, UTC.
    var expires: Double
    /// False while its bytes are being copied: counted against the bounds, never served, not saved.
    var complete = true

    /// The item's name: the last component of ``path``.
    var name: String {
        let last = PathBytes.lastComponent(of: path)
        return last.isEmpty ? "download" : last
    }

    var json: JSONValue {
        .object(["token": .string(token), "file": .string(file), "uid": .integer(Int64(uid)), "path": .string(path),
                 "size": .integer(size), "expires": .double(expires)])
    }

    /// A saved entry; nil when any field is missing or out of range (the entry is then dropped).
    init?(json: JSONValue) {
        guard case .object(let o) = json, case .string(let token)? = o["token"], case .string(let file)? = o["file"],
              case .integer(let uid)? = o["uid"], let owner = UInt32(exactly: uid), case .string(let path)? = o["path"],
              case .integer(let size)? = o["size"], size >= 0, let expires = o["expires"].flatMap(Self.number),
              PublishTokenFormat.isWellFormed(token), PublishToken.isWellFormedFileName(file) else { return nil }
        self.init(token: token, file: file, uid: owner, path: path, size: size, expires: expires)
    }

    init(token: String, file: String, uid: UInt32, path: String, size: Int64, expires: Double, complete: Bool = true) {
        self.token = token
        self.file = file
        self.uid = uid
        self.path = path
        self.size = size
        self.expires = expires
        self.complete = complete
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .double(let d) where d.isFinite: d
        case .integer(let i): Double(i)
        default: nil
        }
    }
}
