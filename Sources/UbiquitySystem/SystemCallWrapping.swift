/// An error type that can stand for a failed system call, carrying the ``SystemCallError`` as it
/// is (a module's own error, such as the watcher's, when its functions throw one type).
///
/// ``System/call(_:path:as:fileID:line:_:)`` throws it directly, so a module keeps one error type
/// without describing system calls a second way.
public protocol SystemCallWrapping: Error {
    init(_ failure: SystemCallError)
}

extension SystemCallError: SystemCallWrapping {
    public init(_ failure: SystemCallError) { self = failure }
}
