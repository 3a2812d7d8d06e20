// GroceryStore — the shopping list (docs/grocery.md), as a library the grocery executable wires up.
//
// Owns: item ids and their short forms, the three storage formats (one file per item in
//   `Documents/`, the `Documents/grocery.gro` package with images, or store mode: the rows of the
//   container's relational store `grocery`, with tags — GroceryTable, on UbiquityKit's
//   PersistentStore), the limits on names, images and tags, and the live list built from a
//   UbiquityKit MetadataQuery (store mode: from the store's import notifications). An item file and the
//   package are saved through UbiquityKit's coordinated Document (lock and etag), the way a
//   client should write.
// Must not: touch the daemon's internals. Grocery talks to ubiquityd only through UbiquityKit
//   and the container's files, exactly as a third-party app would.
// Depends on: UbiquityKit, UbiquityPredicate, UbiquityStore (the schema, tag ids from names), UbiquitySystem (the door: bounded reads, the
//   `fsync` of Documents/ after a delete), Foundation.
