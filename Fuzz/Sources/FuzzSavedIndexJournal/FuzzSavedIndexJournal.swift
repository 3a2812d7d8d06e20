import FuzzDriver
import UbiquityFuzzing

/// libFuzzer's entry for `FuzzSavedIndexJournal` (SwiftPM links an executable's entry as `<Target>_main`).
@_cdecl("FuzzSavedIndexJournal_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(SavedIndexJournalCheck.self, argc: argc, argv: argv)
}
