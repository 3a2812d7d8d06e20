import Glibc

/// SHA-256 (FIPS 180-4), computed by the system's libcrypto, for row ids derived from meaning:
/// any language can recompute them (`hashlib.sha256` in Python), and no device can pick a key
/// that lands on another row's id.
///
/// libcrypto is loaded (`dlopen` of `libcrypto.so.3`, Debian's libssl3) the first time a digest
/// is asked for, not linked: loading it relocates about 400 KB of its data into private pages,
/// which a daemon that serves no store (or not yet) should not pay. A process that cannot load
/// it stops with a message naming the library, as the dynamic loader refused to start the
/// program when it was linked; the Debian package depends on libssl3.
enum SHA256 {
    /// The digest's length in bytes.
    static let digestBytes = 32

    /// OpenSSL's one-shot `SHA256(data, count, out)`, which returns `out`.
    typealias OneShot = @convention(c) (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?

    /// The library's file name: OpenSSL 3's ABI (libssl3 on Debian 12).
    static let library = "libcrypto.so.3"

    /// Loaded once, on first use (a static `let` is initialised once, thread-safely); never
    /// unloaded. Immutable after that, so sharing it between threads is safe.
    nonisolated(unsafe) private static let oneShot: OneShot = load()

    /// The 32-byte digest of `message`.
    static func digest(_ message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: digestBytes)
        let function = oneShot
        message.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                // Never fails: SHA256 returns its output pointer. An empty message's null base
                // address is fine (it reads no bytes).
                _ = function(input.baseAddress, input.count, output.baseAddress)
            }
        }
        return digest
    }

    private static func load() -> OneShot {
        guard let handle = dlopen(library, RTLD_NOW | RTLD_LOCAL) else {
            fatalError("cannot load \(library) for SHA-256 (install libssl3): \(loaderError())")
        }
        guard let symbol = dlsym(handle, "SHA256") else {
            fatalError("\(library) has no SHA256 function: \(loaderError())")
        }
        return unsafeBitCast(symbol, to: OneShot.self)
    }

    private static func loaderError() -> String {
        guard let message = dlerror() else { return "no reason given" }
        return String(cString: message)
    }
}
