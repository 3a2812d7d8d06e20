// UbiquityProtocol — the daemon's wire format (docs/protocol.md is the normative text).
//
// Owns: the framing rules of JSON lines (their text is UbiquityJSON's), the operations
//   (Operations/: one file each with its name, typed parameters and typed result; the build's
//   OperationRegistryPlugin lists the folder for the one registry, Operations.swift, from which
//   request parsing and encoding, the names and the unknown-operation error derive), responses, events (ServerEvent), stable error codes
//   (ProtocolError), the published limits (ServerLimits, StoreLimits), the wire form of
//   relational stores' schemas, values, rows and events (StoreWire, StoreChange, StoreWatchEvent)
//   and the one version of the daemon and every client (UbiquityVersion).
// Must not: open sockets or files — the server and the clients bring their own transport — or
//   evaluate queries.
// Depends on: UbiquityPredicate (attribute names and values on the wire), UbiquityStore (a
//   store's schema, values and row addresses), UbiquityJSON (the text of a line), UbiquityErrors.

