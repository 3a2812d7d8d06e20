// UbiquityTesting — helpers shared by the test targets.
//
// Owns: seeded randomness (SplitMix64), a subscriber's view of a live query (ClientView), reading
//   events and lines with a deadline (firstWithin, the one deadline), the real daemon on a temporary
//   socket inside the test process (InProcessDaemon, withDaemon: the default) or as a process for
//   what needs one (TestDaemon), a raw
//   JSON-lines client (RawClient), running a built or reference program (BuiltExecutable),
//   checking every `--help` page of a built tool at 80 columns against its snapshot (HelpPages),
//   two devices replicating a container through real Syncthing in a private network namespace
//   (TwoDevices, SyncthingREST), and running tests that block or compute on threads of their own,
//   a few at a time (OwnThreads, ThreadPerJobExecutor, AdmissionGate).
// Must not: be a dependency of any product (demo-sync, which runs TwoDevices for a person, is a
//   development executable that is never installed), or stand in for a real component in a test whose
//   feature is that component.
// Depends on: UbiquityServer (the in-process daemon), UbiquityIndex, UbiquityProtocol, UbiquityWatch,
//   UbiquitySystem, swift-log, Foundation.
