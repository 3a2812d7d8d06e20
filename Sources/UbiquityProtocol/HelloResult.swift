public import UbiquityJSON

/// `hello`'s result: who answered, which protocol, the limits, and who the server thinks you are.
public struct HelloResult: OperationResult, Hashable {
    public var server: String
    public var version: String
    public var protocolVersion: Int
    public var limits: ServerLimits
    public var peerUID: UInt32
    public var peerGID: UInt32

    public init(server: String = "ubiquityd", version: String, protocolVersion: Int = WireProtocol.version,
                limits: ServerLimits, peerUID: UInt32, peerGID: UInt32) {
        self.server = server
        self.version = version
        self.protocolVersion = protocolVersion
        self.limits = limits
        self.peerUID = peerUID
        self.peerGID = peerGID
    }

    public var json: JSONValue {
        .object(["server": .string(server), "version": .string(version), "protocol": .integer(Int64(protocolVersion)),
                 "limits": limits.json,
                 "peer": .object(["uid": .integer(Int64(peerUID)), "gid": .integer(Int64(peerGID))])])
    }

    public init(json: JSONValue) throws(ProtocolError) {
        let reader = try FieldReader(json, context: "hello result")
        server = try reader.string("server")
        version = try reader.string("version")
        protocolVersion = try reader.int("protocol")
        limits = try ServerLimits(json: try reader.value("limits"))
        let peer = try FieldReader(try reader.value("peer"), context: "peer")
        peerUID = UInt32(truncatingIfNeeded: try peer.int("uid"))
        peerGID = UInt32(truncatingIfNeeded: try peer.int("gid"))
    }
}
