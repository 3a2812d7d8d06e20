// UbiquityJSON — JSON values and JSON as text: `JSONValue` (integers kept apart from floats and
// booleans) and `JSONLine` (one value per line, written compactly with keys sorted, and parsed back).
//
// Owns: the JSON of the wire, of predicate arguments and of the daemon's own files (the
//   key-value store's), so a module that speaks JSON imports only this — not the query language,
//   not the protocol.
// Must not: know requests, responses, error codes or predicates (UbiquityProtocol and
//   UbiquityPredicate build on it), or do I/O.
// Depends on: CUbiquityBytes (the scan for bytes that need escaping). Nothing of ours: a leaf.
