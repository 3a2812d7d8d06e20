import FuzzDriver
import UbiquityFuzzing

/// libFuzzer's entry for `FuzzConfiguration` (SwiftPM links an executable's entry as `<Target>_main`).
@_cdecl("FuzzConfiguration_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(ConfigurationCheck.self, argc: argc, argv: argv)
}
