// GroceryStore — the shopping list (docs/grocery.md), as a library the grocery executable wires up.
//
// Owns: item ids and their short forms, the two storage formats (one file per item in
//   `Documents/`, or the `Documents/grocery.gro` package with images), the limits on names and
//   images, and the live list built from a UbiquityKit MetadataQuery. An item file and the
//   package are saved through UbiquityKit's coordinated Document (lock and etag), the way a
//   client should write.
// Must not: touch the daemon's internals. Grocery talks to ubiquityd only through UbiquityKit
//   and the container's files, exactly as a third-party app would.
// Depends on: UbiquityKit, UbiquityPredicate, UbiquitySystem (the door: bounded reads, the
//   `fsync` of Documents/ after a delete), Foundation.
