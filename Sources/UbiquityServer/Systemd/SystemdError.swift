public import UbiquitySystem

/// Why a call into libsystemd, or a system call made for the systemd glue, failed: libsystemd
/// returns `-errno`, system calls set `errno`; both arrive as the positive number in the door's
/// ``SystemCallError``. Or one of the glue's own ``SystemdErrorCode``s with a sentence.
///
/// The daemon logs these and mostly carries on: a lost `sd_notify` datagram must not stop it serving
/// queries. ``CodedSystemError/description`` is the sentence people read:
/// `sd_notify failed: Connection refused (ECONNREFUSED)`.
public typealias SystemdError = CodedSystemError<SystemdErrorCode>
