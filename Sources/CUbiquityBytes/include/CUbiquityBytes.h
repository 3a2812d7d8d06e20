// CUbiquityBytes — byte scans that Swift 6.3 does not vectorise: its SIMD16<UInt8> compares
// compile to a loop over single bytes here (a test took ninety times longer than eight-byte
// words), so the readers' hottest loop is written with SSE2, which every x86-64 has.
//
// Owns: ubq_plain_run, the run of JSON string text that needs no closer look.
// Must not: know JSON beyond which bytes end a plain run; hold state.
// Depends on: the C compiler's intrinsics only.
#ifndef C_UBIQUITY_BYTES_H
#define C_UBIQUITY_BYTES_H

#include <stddef.h>
#include <stdint.h>

/// How many of the `count` bytes at `bytes` come before the first that may need a closer look in
/// a JSON string: below 0x20, `"`, `\`, or 0xE2 (which starts U+2028 and U+2029). Sets the high
/// bit of `*seen` when any byte of that run is not ASCII, and leaves it as it was otherwise.
size_t ubq_plain_run(const uint8_t *bytes, size_t count, uint8_t *seen);

#endif
