public import UbiquityErrors

/// Why a key-value request was refused: a ``KeyValueErrorCode``, a sentence and details. The
/// server renders it for the client (`CodedError+ClientFacing.swift`); this module knows no wire.
public typealias KeyValueError = CodedError<KeyValueErrorCode>
