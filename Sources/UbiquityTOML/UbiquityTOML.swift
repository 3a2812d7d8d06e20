// UbiquityTOML — the subset of TOML 1.0 that ubiquityd.toml is written in (docs/configuration.md).
//
// Owns: parsing bytes into a TOMLTable whose every key and value keeps its line and column, and
// the syntax errors (TOMLError, `line:column: message`). Pure: no Glibc, no Foundation, no I/O.
// Must not: know the configuration schema (which keys exist, their types and ranges: that is
// UbiquityServer's DaemonConfiguration+Parse.swift) or read files (callers pass bytes).
// Depends on: nothing but the standard library.
//
// The subset (every document it accepts is valid TOML 1.0 and means the same):
//   comments `#`; bare keys [A-Za-z0-9_-]+ and quoted keys ("..." or '...'); `key = value`;
//   one-level `[table]` and `[[array-of-tables]]` headers; basic strings "..." with the escapes
//   \b \t \n \f \r \" \\ \uXXXX \UXXXXXXXX; literal strings '...'; decimal integers (optional
//   sign, `_` between digits); decimal floats with a fraction (`1.5`, `-0.25`, `1_000.5`, so that a
//   float where an integer belongs is reported as a wrong type, not a syntax error); true / false;
//   arrays (mixed types, multi-line, trailing comma, comments inside); single-line inline tables.
// Refused with a message saying "not supported" (valid TOML the configuration never needs):
//   dotted keys, [a.b] headers, multi-line strings, dates and times, hexadecimal / octal / binary
//   integers, exponents, inf and nan. Files larger than 1 MiB and nesting deeper than 32 levels
//   are refused too. Tests/UbiquityTOMLTests checks all of this against Python's tomllib.
