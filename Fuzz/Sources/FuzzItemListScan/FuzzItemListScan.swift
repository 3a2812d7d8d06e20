import FuzzDriver
import UbiquityFuzzing

/// libFuzzer's entry for `FuzzItemListScan` (SwiftPM links an executable's entry as `<Target>_main`).
@_cdecl("FuzzItemListScan_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(ItemListScanCheck.self, argc: argc, argv: argv)
}
