// UbiquityServer — the daemon as a library; the ubiquityd executable only parses arguments and runs it.
//
// Owns: the configuration (Configuration/: the schema, defaults, container resolution), the
//   Unix-socket server and its sessions (Server/: one Session per connection, authorisation by
//   SO_PEERCRED, one outbox per connection that every event it receives leaves through, QueryEngine
//   events turned into protocol lines, and which errors a client may see: ClientFacingError and
//   every layer's conformance to it), how each protocol operation is answered (Handlers/: one
//   file per operation, dispatched through its conformance), the systemd glue (Systemd/:
//   notify, watchdog, socket activation, journald), the daemon's own files in its state directory
//   (Persistence/: the saved index's store and the bounded reads of files the daemon keeps, both
//   through UbiquitySystem's Directory and durable replace; KeyValue/: the key-value store;
//   Stores/: every container's relational stores over UbiquityStoreFiles' DeviceStore, their
//   imports started by the watcher, `store.changed` and live fetches), published snapshots and the
//   HTTP/1 listener that serves them (Publish/: off unless configured; the one place the daemon
//   reads a file's bytes for a peer, with the peer's rights) and the service that wires it all
//   (Daemon/).
// Must not: parse predicates itself or walk the file system to answer a query: the index
//   (UbiquityIndex, fed by UbiquityWatch) is the single source of truth.
// Depends on: UbiquityProtocol, UbiquityIndex, UbiquityWatch, UbiquityTOML, UbiquityKeyValue,
//   UbiquityStore and UbiquityStoreFiles (relational stores), UbiquitySystem (the
//   door: system calls, SystemCallError, Directory, the durable replace), CSystemd, swift-nio
//   (+ nio-extras, NIOHTTP1 for the publish listener), swift-log, swift-service-lifecycle.

// The version (`hello`, `status`, `--version`) is UbiquityProtocol's UbiquityVersion, shared with the clients.
