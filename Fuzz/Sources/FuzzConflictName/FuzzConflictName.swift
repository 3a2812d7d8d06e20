import FuzzDriver
import UbiquityFuzzing

/// libFuzzer's entry for `FuzzConflictName` (SwiftPM links an executable's entry as `<Target>_main`).
@_cdecl("FuzzConflictName_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(ConflictNameCheck.self, argc: argc, argv: argv)
}
