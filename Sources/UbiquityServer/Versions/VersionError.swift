public import UbiquityErrors

/// Why a versions or document operation was refused: a ``VersionErrorCode``, a sentence and details.
public typealias VersionError = CodedError<VersionErrorCode>
