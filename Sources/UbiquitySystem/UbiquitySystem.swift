// UbiquitySystem — the one door to the kernel (this project's NIOPosix).
//
// Owns: system calls and how they fail — `System.call` (`EINTR` retried, `-1` and `errno` into one
//   `SystemCallError`: call, errno, path, `strerror` and a stable code; `CodedSystemError`, the one
//   shape of a module's error that is either such a failed call or a refusal of its own);
//   `Directory`, a directory
//   held by descriptor in which every name is opened with `O_NOFOLLOW`, read bounded, listed,
//   written, renamed and removed (a tree, bounded); the one durable replace
//   (`Directory.replace`: hidden temporary file made `O_CREAT | O_EXCL | O_NOFOLLOW`, written
//   whole, `fsync`, `renameat` over the name, `fsync` of the directory; `Directory.createNew`
//   links it to a name that must not exist instead), used by the daemon,
//   UbiquityKit and GroceryStore alike; and client paths as bytes (split on the byte 0x2F, never
//   on characters), validated and opened beneath a held directory descriptor without following
//   any link (`openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)`, falling
//   back to one `O_NOFOLLOW` component at a time).
// Must not: decide who may do what (the daemon's authorisation does), know the wire protocol,
//   hold state, or wait for the disk on Swift's cooperative pool: the calls that wait (`fsync`,
//   the durable replace, recursive removal) are `noasync`, report a call made on a task to the
//   task-local `WaitRecorder` tests install, and `scripts/check-door` fails when `fsync`,
//   `fdatasync` or `renameat` is called anywhere else.
// Depends on: UbiquityErrors (the stable code), CUbiquitySystem (openat2, renameat2), the C library.
//
// Why bytes: splitting a Swift `String` on the character "/" works by grapheme cluster, and a `/` after a
// grapheme "prepend" character (U+0600, U+06DD, U+0D4E, …) is not a separator there — the kernel,
// which sees bytes, then walks through a symbolic link hidden in the "one" component.
