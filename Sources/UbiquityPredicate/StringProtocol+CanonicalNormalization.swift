// NFC and NFD from the standard library, the ones its String comparison uses, for `[d]` folding
// and MATCHES. Foundation's NFC (ICU's) leaves U+AC00 U+11A8 apart where Unicode composes them to
// U+AC01 `각`: `name MATCHES '각'` typed as jamo missed the file `각` that `==` and LIKE found.
//
// `_nfc` and `_nfd` are the standard library's SPI. It is linked into our binaries with the rest
// of the runtime, so it cannot change under a built program; a toolchain that changed it would
// fail to compile this file rather than behave differently, and CanonicalNormalizationTests
// checks both forms against Python's unicodedata.
@_spi(_Unicode) import Swift

extension StringProtocol {
    /// The canonical decomposition (NFD) of the text, scalar by scalar.
    var canonicallyDecomposedScalars: Unicode._NFD { String(self)._nfd }

    /// The canonical composition (NFC) of the text.
    var canonicallyComposed: String {
        var out = String.UnicodeScalarView()
        out.append(contentsOf: String(self)._nfc)
        return String(out)
    }
}
