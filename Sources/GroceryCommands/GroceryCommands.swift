// GroceryCommands — the shopping-list CLI `grocery` on top of ubiquityd (docs/grocery.md), as a
// library: the `grocery` executable and the multi-call `ubiquityd` (run as `grocery`, the Debian
// package's link) both start it through GroceryCommandLine.
//
// Owns: argument parsing, output formatting and wiring.
// Must not: read or write the list itself: the storage formats and the live list live in GroceryStore.
// Depends on: CommandLineSupport, GroceryStore, UbiquityKit, swift-argument-parser.
