import FuzzDriver
import UbiquityFuzzing

/// libFuzzer's entry for `FuzzServerMessage` (SwiftPM links an executable's entry as `<Target>_main`).
@_cdecl("FuzzServerMessage_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(ServerMessageCheck.self, argc: argc, argv: argv)
}
