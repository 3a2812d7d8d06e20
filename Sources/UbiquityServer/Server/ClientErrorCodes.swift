import UbiquityIndex
import UbiquityKeyValue
import UbiquityPredicate
import UbiquityProtocol
import UbiquityStore
import UbiquityErrors

/// Every error code a client can receive from this server, gathered from the error types that
/// declare them (each code is declared once, by its own type). docs/protocol.md's error table and
/// its test read this list.
public enum ClientErrorCodes {
    public static var all: [String] {
        ProtocolError.Code.protocolCodes.map(\.rawValue)
            + MetadataPredicateError.Code.allCases.map(\.rawValue)
            + EngineError.Code.allCases.map(\.rawValue)
            + VersionError.Code.allCases.map(\.rawValue)
            + KeyValueError.Code.allCases.map(\.rawValue)
            + StoreErrorCode.clientCodes.map(\.rawValue)
            + StoreRequestErrorCode.allCases.map(\.rawValue)
            + PublishError.Code.allCases.map(\.rawValue)
            + SyncError.Code.allCases.map(\.rawValue)
    }
}
