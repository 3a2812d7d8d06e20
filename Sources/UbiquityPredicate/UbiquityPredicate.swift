// UbiquityPredicate — the NSPredicate / Spotlight query language.
//
// Owns: lexing, parsing, type checking, evaluation, the canonical printed form, index hints and
//   sort descriptors (MetadataPredicate*, MetadataSortDescriptor); the one table of attribute
//   names (Attribute), or instead a table's columns handed in (PredicateColumns, for a relational
//   store's fetches); LinearRegex, the linear-time engine behind MATCHES; the orders of names
//   (NameOrder) and of bytes (ByteOrder) that the index and the answers sort by.
// Must not: do I/O (no file system, no sockets, no Glibc but localtime_r for the local zone's
//   UTC offsets, TimeZoneOffsets.local, and memcmp for ByteOrder), or know where attribute values
//   come from: callers hand them in through AttributeProvider.
// Depends on: the standard library (Unicode normalisation: StringProtocol+CanonicalNormalization)
//   and FoundationEssentials (Date, JSON): never Foundation's calendars and time zones, whose ICU
//   data would be in every binary (EvaluationContext computes the Gregorian calendar itself).
