import FuzzDriver
import UbiquityFuzzing

/// libFuzzer's entry for `FuzzTOML` (SwiftPM links an executable's entry as `<Target>_main`).
@_cdecl("FuzzTOML_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(TOMLCheck.self, argc: argc, argv: argv)
}
