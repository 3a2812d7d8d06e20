// UbiqCommands — the query CLI `ubiq`, like mdfind (docs/ubiq.md), as a library: the `ubiq`
// executable and the multi-call `ubiquityd` (run as `ubiq`, the Debian package's link) both start
// it through UbiqCommandLine.
//
// Owns: argument parsing and output (tables, JSON lines, exit statuses) of query, watch,
//   containers, status, predicate and kv.
// Must not: implement the language (UbiquityPredicate) or the protocol (UbiquityKit talks to the daemon).
// Depends on: CommandLineSupport, UbiquityPredicate, UbiquityProtocol, UbiquityKit, swift-argument-parser.
