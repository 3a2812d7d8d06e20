public import UbiquitySystem
public import UbiquityErrors

/// Why a file-system operation of UbiquityWatch failed: a failed system call, or one of the
/// watcher's own ``WatchErrorCode``s with a sentence.
///
/// ``CodedSystemError/code`` is stable (its raw value is a documented wire string);
/// ``CodedSystemError/description`` is the sentence people read:
/// `inotify_add_watch failed for /srv/c/Documents: No space left on device (ENOSPC)`.
public typealias WatchError = CodedSystemError<WatchErrorCode>
