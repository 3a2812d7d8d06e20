// UbiquityJSON — JSON as text: one value per line, written compactly with keys sorted, and
// parsed back (JSONLine).
//
// Owns: the JSON text of the wire and of the daemon's own files (the key-value store's), so the
//   pure modules that keep JSON on disk need no protocol.
// Must not: know requests, responses or error codes (UbiquityProtocol wraps it), or do I/O.
// Depends on: UbiquityPredicate (JSONValue, until it has a leaf module of its own; this one is
//   its natural home), CUbiquityBytes (the scan for bytes that need escaping).
