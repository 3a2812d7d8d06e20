public import UbiquityErrors

/// Why a publish operation was refused: a ``PublishErrorCode``, a sentence and details.
public typealias PublishError = CodedError<PublishErrorCode>
