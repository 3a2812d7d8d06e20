// CZlib — zlib as Swift sees it (a system library target: zlib1g-dev, pkg-config zlib).
//
// Owns: the header for crc32_z and crc32_combine, behind UbiquityBinary's CRC32 (the CRC-32 of
//   store segments and of the saved index).
// Must not: hold code.
// Depends on: libz.
#include <zlib.h>
