// UbiquityPaths — one door for paths a client names.
//
// Owns: a client path as bytes (split on the byte 0x2F, never on characters), its validation, and
//   opening it beneath a directory descriptor the caller holds without following any symbolic
//   link (`openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)`, falling back
//   to one `O_NOFOLLOW` component at a time), plus descriptor-relative listing and removal.
// Must not: decide who may do what (the daemon's authorisation does), open a root by path, or
//   know the wire protocol.
// Depends on: CUbiquitySystem (openat2), the C library.
//
// Why bytes: splitting a Swift `String` on the character "/" works by grapheme cluster, and a `/` after a
// grapheme "prepend" character (U+0600, U+06DD, U+0D4E, …) is not a separator there — the kernel,
// which sees bytes, then walks through a symbolic link hidden in the "one" component.
