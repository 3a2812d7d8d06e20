import FuzzDriver
import UbiquityFuzzing

/// libFuzzer's entry for `FuzzPredicate` (SwiftPM links an executable's entry as `<Target>_main`).
@_cdecl("FuzzPredicate_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(PredicateCheck.self, argc: argc, argv: argv)
}
