/// The codes of ``ConfigurationError``: what is wrong with a configuration file. Stable (the raw value is what tests and tools read).
public enum ConfigurationErrorCode: String, StableErrorCode {
    /// The file cannot be opened or read, or is too large.
    case unreadable = "config.unreadable"
    /// The text is not in the supported TOML subset.
    case syntax = "config.syntax"
    /// A key the format does not know (the message suggests the nearest one).
    case unknownKey = "config.unknownKey"
    /// A value of the wrong TOML type.
    case wrongType = "config.wrongType"
    /// A required key is absent.
    case missingKey = "config.missingKey"
    /// A value of the right type that is not acceptable (bad id, relative path, ...).
    case invalidValue = "config.invalidValue"
    /// A number outside its documented range.
    case outOfRange = "config.outOfRange"
    /// An owner or group name that the system does not know.
    case unknownAccount = "config.unknownAccount"
    /// Two declarations that cannot both hold (the same id or path twice; flags that exclude each other).
    case conflict = "config.conflict"
}
