// UbiquityBinary — the byte-level encodings the daemon's binary files share: fixed-width
// little-endian integers, LEB128 varints, zigzag varints and length-prefixed bytes (`ByteWriter`,
// and `ByteScratch` for a record's many small fields in one copy), and the CRC-32 that closes
// each record (`CRC32`).
//
// Owns: writing those encodings, for the saved index and its journal (UbiquityIndex) and for a
//   relational store's log segments and merge registers (UbiquityStore), so that both write their
//   numbers one way. Each format's own fields, and the readers (which throw each format's own
//   error), stay with the format.
// Must not: do I/O, or know either format.
// Depends on: CZlib (CRC-32 is zlib's). Nothing of ours: a leaf.
