public import UbiquityErrors

/// Why a files-on-demand operation was refused: a ``SyncErrorCode``, a sentence and details.
public typealias SyncError = CodedError<SyncErrorCode>
