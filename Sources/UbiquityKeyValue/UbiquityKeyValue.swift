// UbiquityKeyValue owns the key-value store's logic (NSUbiquitousKeyValueStore, docs/kv-store.md):
// typed values and their wire form, one device's file and its format, the key-by-key merge of
// every device's file (last writer wins, ties broken by device id), and the quotas.
//
// Must not: touch the file system, the clock or the network. The daemon (UbiquityServer/KeyValue)
// reads and writes the files, hands their bytes and the time in here, and sends the events.
//
// Depends on: UbiquityErrors (KeyValueError is a CodedError; the server makes it client-facing),
//   UbiquityJSON (values, the store file's text and the quota's byte count), UbiquityPredicate (dates).
//   No protocol: the daemon's KeyValue/ folder puts the store on the wire.
