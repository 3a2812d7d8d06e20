// UbiquityPredicate — the NSPredicate / Spotlight query language.
//
// Owns: lexing, parsing, type checking, evaluation, the canonical printed form, index hints and
//   sort descriptors (MetadataPredicate*, MetadataSortDescriptor); the one table of attribute
//   names (Attribute); LinearRegex, the linear-time engine behind MATCHES.
// Must not: do I/O (no file system, no sockets, no Glibc), or know where attribute values come
//   from: callers hand them in through AttributeProvider.
// Depends on: the standard library (Unicode normalisation: StringProtocol+CanonicalNormalization)
//   and Foundation (calendar dates and time zones).
