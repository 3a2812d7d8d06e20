/// What can go wrong in Grocery, each case with a message that names what was wrong.
public enum GroceryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No item's id starts with this prefix.
    case unknownItem(prefix: String)
    /// Several items' ids start with this prefix; `candidates` are their full ids.
    case ambiguousItem(prefix: String, candidates: [String])
    /// The prefix holds characters that cannot appear in an item id.
    case invalidItemID(String)
    case nameTooLong(bytes: Int, limit: Int)
    case imageTooLarge(bytes: Int, limit: Int)
    /// The file is neither a PNG nor a JPEG (checked by its signature, not its extension).
    case unsupportedImage(path: String)
    /// The package exists but cannot be read; `reason` says where and why.
    case corruptPackage(path: String, reason: String)
    /// A file system call failed.
    case io(path: String, operation: String, message: String)
    /// A name read from a stream (`add --stdin`) passed the limit; reading stopped there, so
    /// its full length is unknown.
    case nameTooLongInput(source: String, limit: Int)
    /// `image get` for an item without an image.
    case noImage(GroceryItemID)
    /// The command needs the other storage format; the message says which.
    case unsupportedMode(String)
    /// Tags (`add --tag`, `tag`, `untag`, `tags`, `list --tag`) outside store mode.
    public static let tagsNeedStore = GroceryError.unsupportedMode(
        "tags live in the relational store: add --store relational (docs/grocery.md, \"Store mode\")")
    /// `conflicts` and `resolve` in store mode, which merges each property and keeps no versions.
    public static let noVersionsInStore = GroceryError.unsupportedMode(
        "store mode has no conflict versions: each property of an item is merged, the latest write winning on every device")
    /// `resolve` of an item that has no conflict versions.
    case notInConflict(GroceryItemID)
    /// `resolve --pick N` past the versions `conflicts` lists.
    case noSuchVersion(number: Int, count: Int)
    /// `resolve --name NAME`: no version, or several, give the item that name.
    case noVersionNamed(String, names: [String])
    /// A tag name that is empty (or only white space) or longer than the limit (store mode).
    case tagTooLong(bytes: Int, limit: Int)
    case emptyTag
    /// `untag` or `list --tag` with a tag that does not exist; `known` are the tags that do.
    case unknownTag(String, known: [String])
    /// More tags in one command than ``GroceryLimits/maxTagsPerCommand``.
    case tooManyTags(count: Int, limit: Int)

    public var description: String {
        switch self {
        case .unknownItem(let prefix):
            return "no item with id '\(prefix)' (run `grocery list` to see the ids)"
        case .ambiguousItem(let prefix, let candidates):
            let shown = candidates.prefix(5).joined(separator: ", ")
            let more = candidates.count > 5 ? ", …" : ""
            return "id '\(prefix)' is ambiguous: \(candidates.count) items start with it (\(shown)\(more)); type more characters"
        case .invalidItemID(let text):
            return "'\(text)' is not an item id: ids are hexadecimal digits and dashes, like 3F2A or 3F2A9C1E-…"
        case .nameTooLong(let bytes, let limit):
            return "the name is \(bytes) bytes long; names are limited to \(limit) bytes of UTF-8"
        case .imageTooLarge(let bytes, let limit):
            return "the image is \(bytes) bytes; images are limited to \(limit) bytes"
        case .unsupportedImage(let path):
            return "\(path) is not a PNG or JPEG image (checked by its first bytes)"
        case .corruptPackage(let path, let reason):
            return "\(path) cannot be read: \(reason)"
        case .io(let path, let operation, let message):
            return "\(operation) \(path): \(message)"
        case .nameTooLongInput(let source, let limit):
            return "the name on \(source) is longer than \(limit) bytes; names are limited to \(limit) bytes of UTF-8"
        case .noImage(let id):
            return "item \(id) has no image (set one with `grocery image set \(id.uuidString.prefix(8)) FILE --store package`)"
        case .unsupportedMode(let message):
            return message
        case .notInConflict(let id):
            return "item \(id.uuidString.prefix(8)) is not in conflict: it has one version"
        case .noSuchVersion(let number, let count):
            return "there is no version \(number): the item has \(count) (see `grocery conflicts ID`)"
        case .noVersionNamed(let name, let names):
            let shown = names.map { "'\($0)'" }.joined(separator: ", ")
            return "no single version names the item '\(name)'; the versions name it \(shown) (use --pick N)"
        case .tagTooLong(let bytes, let limit):
            return "the tag is \(bytes) bytes long; tags are limited to \(limit) bytes of UTF-8"
        case .emptyTag:
            return "a tag needs a name that is not empty or only spaces"
        case .unknownTag(let name, let known):
            let shown = known.isEmpty ? "there are none" : "the tags are " + known.map { "'\($0)'" }.joined(separator: ", ")
            return "no tag '\(name)' (\(shown); `grocery tags` lists them)"
        case .tooManyTags(let count, let limit):
            return "\(count) tags in one command; at most \(limit)"
        }
    }
}

extension GroceryError {
    /// True when the user's input was wrong (an id, a name, an image file), false when a file
    /// operation failed or a package is damaged. `grocery` exits 2 for the first, 1 for the second.
    public var isInputError: Bool {
        switch self {
        case .unknownItem, .ambiguousItem, .invalidItemID, .nameTooLong, .nameTooLongInput, .imageTooLarge, .unsupportedImage,
             .noImage, .unsupportedMode, .notInConflict, .noSuchVersion, .noVersionNamed, .tagTooLong, .emptyTag, .unknownTag,
             .tooManyTags:
            true
        case .corruptPackage, .io:
            false
        }
    }

    /// Pictures live only in the package (`--store package`).
    public static let imagesNeedPackage = GroceryError.unsupportedMode(
        "images are kept only in package mode: add --store package (see docs/grocery.md)")
}
