import FuzzDriver
import UbiquityFuzzing

/// libFuzzer's entry for `FuzzRememberedAnswers` (SwiftPM links an executable's entry as `<Target>_main`).
@_cdecl("FuzzRememberedAnswers_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(RememberedAnswersCheck.self, argc: argc, argv: argv)
}
