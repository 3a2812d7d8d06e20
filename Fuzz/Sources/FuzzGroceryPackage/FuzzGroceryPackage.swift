import FuzzDriver
import UbiquityFuzzing

/// libFuzzer's entry for `FuzzGroceryPackage` (SwiftPM links an executable's entry as `<Target>_main`).
@_cdecl("FuzzGroceryPackage_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(GroceryPackageCheck.self, argc: argc, argv: argv)
}
