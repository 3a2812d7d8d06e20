// FuzzDriver owns the one entry every fuzz target shares: libFuzzer's driver, fed to a
// UbiquityFuzzing check. It must not hold invariants of its own (they live in UbiquityFuzzing).
public import UbiquityFuzzing
import Glibc

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The check the running executable fuzzes: set once, before the driver starts, and only read
/// afterwards (libFuzzer calls the callback on the thread that started it).
nonisolated(unsafe) private var current: (any FuzzCheck.Type)?

/// Runs libFuzzer with `check` on every input; an input that breaks its invariant prints the
/// check's sentence and aborts, which libFuzzer reports as a crash and saves.
public func runFuzzer(_ check: any FuzzCheck.Type, argc: CInt, argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    current = check
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        if let check = current, let failure = check.check(bytes) {
            let line = Array("\(check.name): invariant broken: \(failure)\n".utf8)
            _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
            abort()
        }
        return 0
    }
}
