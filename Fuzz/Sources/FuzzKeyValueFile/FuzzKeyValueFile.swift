import FuzzDriver
import UbiquityFuzzing

/// libFuzzer's entry for `FuzzKeyValueFile` (SwiftPM links an executable's entry as `<Target>_main`).
@_cdecl("FuzzKeyValueFile_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(KeyValueFileCheck.self, argc: argc, argv: argv)
}
