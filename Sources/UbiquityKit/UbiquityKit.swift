// UbiquityKit owns the client side of the daemon's socket: a connection that speaks
// UbiquityProtocol, MetadataQuery (shaped like NSMetadataQuery) and UbiquityContainer.
// It must not read the index or the file system to answer queries: everything comes from ubiquityd.
