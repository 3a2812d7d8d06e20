/// One name index bucket's waiting names as a snapshot filed them off the engine
/// (``IndexSnapshot/View/fileWaitingNames()``): the ids that waited, and the same ids in (name, id)
/// order, for the engine to take (``MetadataIndex/takeFiledNames(_:)``) rather than sort.
package struct FiledNameBucket: Sendable {
    var waiting: [ItemID]
    var sorted: [ItemID]
    /// How many times the engine had filed this bucket's waiting names when the view was taken
    /// (``MetadataIndex/bucketFilings``).
    var filingsBefore: UInt64
}
