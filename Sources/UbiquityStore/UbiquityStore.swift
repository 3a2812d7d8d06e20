// UbiquityStore owns the pure core of relational stores that sync (docs/stores.md): a store's
// declared schema and its additive evolution, the hybrid logical clock, the change and log segment
// format, and the merge engine that turns any set of segments from any devices into one state and
// says what each import inserted, updated, deleted and settled.
//
// Also owns the byte form of a row's and a pair's merge registers (StoreRegisters), which the
// daemon's cache keeps, the snapshot format that carries them between devices (Snapshot) and the
// join of two states register by register, and a row's address on the wire (StoreRowURL).
//
// Must not: touch the file system, the clock, randomness or the network. Time (wall-clock
// milliseconds) and random row ids are passed in; the daemon reads and writes the segment files,
// keeps the SQLite cache and sends the events.
//
// Depends on: UbiquityErrors (StoreError is a CodedError; the server makes it client-facing),
//   UbiquityJSON (the values of JSON columns), UbiquityBinary (the byte writer and CRC-32 it
//   shares with the saved index) and the system's libcrypto (SHA-256, a pure computation;
//   loaded with dlopen at the first digest, SHA256.swift: the one file read). No protocol, no SQLite.
public import UbiquityErrors

/// Why a store refused a schema, a change or a segment: a ``StoreErrorCode``, a sentence naming
/// what was wrong, and details (`device`, `sequence`, `offset`, `table`, `column`, `limit`…).
public typealias StoreError = CodedError<StoreErrorCode>
