// UbiquityFuzzing owns the invariants that the fuzz targets (the Fuzz package) check on every
// input, and that `make test` checks on every committed corpus and regression input: one place
// for both, so a fuzzer and a replay can never disagree about what is a bug.
// It must not do I/O: a check takes bytes and says what is wrong, or nothing.
