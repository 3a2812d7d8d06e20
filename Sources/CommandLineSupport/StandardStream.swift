import Glibc

/// Writing to standard output and error for a command-line tool whose reader may go away.
public enum StandardStream {
    /// write(2) until done. When the reader has gone (`ubiq query … | head`, `grocery list | head`:
    /// EPIPE, with SIGPIPE ignored by the tool) there is nobody left to tell: exit quietly, as
    /// `cat` does. FileHandle.write would trap on EPIPE instead.
    public static func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0), to: fd) }
    }

    /// Bytes already encoded: big outputs are written in chunks without becoming a String.
    public static func write(_ bytes: [UInt8], to fd: Int32) {
        bytes.withUnsafeBytes { write($0, to: fd) }
    }

    private static func write(_ bytes: UnsafeRawBufferPointer, to fd: Int32) {
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n >= 0 {
                offset += n
            } else if errno == EPIPE {
                exit(0)
            } else if errno != EINTR {
                return  // nothing sensible to do about a failing terminal
            }
        }
    }
}
